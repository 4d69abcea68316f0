import type { Migration } from '../migration.js';

/**
 * Where this desktop is with the central (main/core/sync/): how far its change log was pushed
 * and acknowledged, and its cursor on the central's change sequence. Not logged: it is not data,
 * and logging every cursor move would fill the history with bookkeeping.
 */
export const migration011: Migration = {
  version: 11,
  name: 'sync state',
  up(db) {
    db.exec('CREATE TABLE sync_state (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;');
  },
};
