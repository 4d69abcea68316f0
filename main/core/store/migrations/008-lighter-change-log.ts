import { triggers, type Logged } from './frozen/007-change-triggers.js';
import type { Migration } from '../migration.js';
import { LOGGED_007 } from './007-change-log.js';

const POIS_007 = LOGGED_007.find((t) => t.table === 'pois')!;

/** The POI's categories are one of its fields in the log, as a sorted JSON array of ids. */
const POIS_008: Logged = { ...POIS_007, columns: [...POIS_007.columns, 'category_ids'], json: ['category_ids'] };

/** What each table records as of this schema version: a later one that adds a column recreates its table's triggers. */
export const LOGGED_008: readonly Logged[] = LOGGED_007.filter((t) => t.table !== 'poi_categories').map((t) => (t.table === 'pois' ? POIS_008 : t));

/**
 * The change log costs a write less (`npm run bench` add.json):
 * - A POI's categories are its own column, `category_ids`, written with the POI in the same
 *   statement and logged with its other fields: one change row per POI write instead of one
 *   more per category link (an update that set the same categories again logged a delete and a
 *   create per link), and a history that reads "category_ids [6,7] → [7]". The link table stays
 *   what category filters search; the database derives it from the column, and nothing else
 *   may write it.
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
      UPDATE pois SET category_ids = (SELECT json_group_array(category_id ORDER BY category_id) FROM poi_categories WHERE poi_id = pois.id)
      WHERE id IN (SELECT poi_id FROM poi_categories);
      ${triggers(POIS_008)}
      CREATE TRIGGER pois_links_create AFTER INSERT ON pois WHEN NEW.category_ids <> '[]' BEGIN
        INSERT INTO poi_categories (poi_id, category_id) SELECT NEW.id, value FROM json_each(NEW.category_ids);
      END;
      CREATE TRIGGER pois_links_update AFTER UPDATE OF category_ids ON pois WHEN OLD.category_ids IS NOT NEW.category_ids BEGIN
        DELETE FROM poi_categories WHERE poi_id = NEW.id;
        INSERT INTO poi_categories (poi_id, category_id) SELECT NEW.id, value FROM json_each(NEW.category_ids);
      END;
      -- Links are written by the triggers above only; a connection without the service's functions
      -- (the sqlite3 shell) is refused, as it is for every logged table.
      CREATE TRIGGER poi_categories_guard_create BEFORE INSERT ON poi_categories BEGIN SELECT change_actor_kind(); END;
      CREATE TRIGGER poi_categories_guard_update BEFORE UPDATE ON poi_categories BEGIN SELECT change_actor_kind(); END;
      CREATE TRIGGER poi_categories_guard_delete BEFORE DELETE ON poi_categories BEGIN SELECT change_actor_kind(); END;
      DROP INDEX changes_of_pois;
      DROP INDEX changes_by_client;
    `);
  },
};
