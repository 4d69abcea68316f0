import { triggers, type Logged } from '../change-triggers.js';
import type { Migration } from '../migration.js';
import { LOGGED_007 } from './007-change-log.js';

const POIS_007 = LOGGED_007.find((t) => t.table === 'pois')!;

/** The POI's categories are one of its fields in the log, as a sorted JSON array of ids. */
const POIS_008: Logged = { ...POIS_007, columns: [...POIS_007.columns, 'category_ids'], json: ['category_ids'] };

/** What each table records as of this schema version: a later one that adds a column recreates its table's triggers. */
export const LOGGED_008: readonly Logged[] = LOGGED_007.filter((t) => t.table !== 'poi_categories').map((t) => (t.table === 'pois' ? POIS_008 : t));

/**
 * The change log costs a write less (`npm run bench` add.json):
 * - A POI's categories are its own column, `category_ids`, written with the POI by the store in
 *   the same statement, and logged with its other fields: one change row per POI write instead
 *   of one more per category link (an update that set the same categories again logged a
 *   delete and a create per link), and a history that reads "categories [6,7] → [7]". The link
 *   table stays what category filters search, written only beside that column.
 * - `changes_by_client` had no reader (export and sync read the log in `seq` order, its primary
 *   key), and `changes_of_pois`, which the map's version read, gives way to a scan of the rows
 *   appended since the last read (main/core/pois/data-watch.ts): each index was one more B-tree
 *   to update with every change, and more pages for every durable commit to write.
 * Existing POIs get their categories without a logged change (the triggers are recreated after).
 */
export const migration008: Migration = {
  version: 8,
  name: 'lighter change log',
  up(db) {
    db.exec(`
      DROP TRIGGER poi_categories_logged_create;
      DROP TRIGGER poi_categories_logged_update;
      DROP TRIGGER poi_categories_logged_delete;
      DROP TRIGGER pois_logged_create;
      DROP TRIGGER pois_logged_update;
      DROP TRIGGER pois_logged_delete;
      ALTER TABLE pois ADD COLUMN category_ids TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(category_ids));
      UPDATE pois SET category_ids = (
        SELECT json_group_array(category_id) FROM (SELECT category_id FROM poi_categories WHERE poi_id = pois.id ORDER BY category_id)
      ) WHERE id IN (SELECT poi_id FROM poi_categories);
      ${triggers(POIS_008)}
      DROP INDEX changes_of_pois;
      DROP INDEX changes_by_client;
    `);
  },
};
