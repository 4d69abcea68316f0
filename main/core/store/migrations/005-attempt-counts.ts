import type { Migration } from '../migration.js';

/**
 * Rate-limit counts (failed logins, Implicit Flow registrations) live in the database, so that a
 * restart or a crash does not hand a guesser a fresh allowance, and two processes serving one
 * data folder (`npm start` and `cli serve`) share them. Keys are SHA-256 digests: a password
 * typed into the username field is not kept in clear.
 */
export const migration005: Migration = {
  version: 5,
  name: 'attempt counts',
  up(db) {
    db.exec(`
      CREATE TABLE attempt_counts (
        bucket   TEXT NOT NULL,
        key      BLOB NOT NULL,
        count    INTEGER NOT NULL CHECK (count >= 0),
        reset_at INTEGER NOT NULL,
        PRIMARY KEY (bucket, key)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX attempt_counts_by_reset ON attempt_counts (reset_at);
    `);
  },
};
