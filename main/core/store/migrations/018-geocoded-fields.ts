import type { Migration } from '../migration.js';

/**
 * Which source filled each address field a change wrote by geocoding ("offline map package San
 * Francisco", "Nominatim", "offline places"), for the POI's history: one row per field, by the
 * change's seq (main/core/changes/geocoded-fields.ts). Local, as the log's positions are: sync
 * carries the values, not where this desktop found them.
 */
export const migration018: Migration = {
  version: 18,
  name: 'geocoded fields',
  up(db) {
    db.exec(`
      CREATE TABLE geocoded_fields (
        seq    INTEGER NOT NULL REFERENCES changes (seq),
        field  TEXT NOT NULL,
        source TEXT NOT NULL,
        PRIMARY KEY (seq, field)
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
