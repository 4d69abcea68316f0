import type { Migration } from '../migration.js';

/** The tables whose rows the map and the POI panels show. */
const WATCHED = ['pois', 'poi_categories', 'categories', 'warnings'] as const;

/**
 * One counter that every change to the data under the map moves, kept by triggers so that no
 * writer can forget it, in this process or another one on the same file (`cli serve` beside the
 * desktop app). Reading it tells the map whether to rebuild, exactly and for the cost of one row.
 */
export const migration006: Migration = {
  version: 6,
  name: 'change count',
  up(db) {
    db.exec(`
      CREATE TABLE change_counts (
        topic TEXT PRIMARY KEY,
        value INTEGER NOT NULL
      ) STRICT, WITHOUT ROWID;
      INSERT INTO change_counts VALUES ('pois', 0);
    `);
    for (const table of WATCHED) {
      for (const event of ['INSERT', 'UPDATE', 'DELETE'] as const) {
        db.exec(`CREATE TRIGGER ${table}_counted_${event.toLowerCase()} AFTER ${event} ON ${table} BEGIN
          UPDATE change_counts SET value = value + 1 WHERE topic = 'pois';
        END;`);
      }
    }
  },
};
