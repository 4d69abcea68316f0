import type { Migration } from '../migration.js';

/** Settings of this installation (tile server, listener), each a JSON value under a key. */
export const migration003: Migration = {
  version: 3,
  name: 'settings',
  up(db) {
    db.exec(`
      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL CHECK (json_valid(value))
      ) STRICT, WITHOUT ROWID;
    `);
  },
};
