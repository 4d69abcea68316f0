import type { Migration } from '../migration.js';

/**
 * Which POI each merged one went into (main/core/pois/merge.ts), so that the kept POI's history
 * shows the merged one's too. The merge itself is in the log (the reports moved, the other POI's
 * delete); this only links the two histories.
 */
export const migration012: Migration = {
  version: 12,
  name: 'poi merges',
  up(db) {
    db.exec('CREATE TABLE poi_merges (merged_id INTEGER PRIMARY KEY, into_id INTEGER NOT NULL, client_id TEXT NOT NULL, at INTEGER NOT NULL) STRICT;');
  },
};
