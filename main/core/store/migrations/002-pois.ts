import type { Migration } from '../migration.js';

/**
 * The built-in categories as this migration wrote them, ids 1, 2, 3... in this order: a copy of
 * shared/system-categories.ts as it was, so that a later edit of that list does not change what
 * this migration writes (test/core/frozen-migrations.test.ts says when the two part ways: the
 * new names then need a migration of their own).
 */
export const SYSTEM_CATEGORIES_002 = [
  'Restaurant',
  'Café and bar',
  'Hotel and lodging',
  'Shop',
  'Supermarket',
  'Museum',
  'Monument and landmark',
  'Park and garden',
  'Beach',
  'Viewpoint',
  'Hospital and clinic',
  'Pharmacy',
  'School and university',
  'Library',
  'Public transport stop',
  'Train station',
  'Airport',
  'Fuel station',
  'EV charging',
  'Parking',
  'Bank and ATM',
  'Post office',
  'Police',
  'Place of worship',
  'Sports facility',
  'Theatre and cinema',
  'Public toilet',
  'Drinking water',
  'Tourist information',
  'Other',
] as const;

/**
 * POIs, categories (system rows have client_id NULL), POI-category links, warnings, and an
 * R*Tree over POI positions so that near and viewport queries stay fast at a million POIs.
 */
export const migration002: Migration = {
  version: 2,
  name: 'pois',
  up(db) {
    db.exec(`
      CREATE TABLE categories (
        id          INTEGER PRIMARY KEY,
        client_id   TEXT REFERENCES clients(id) ON DELETE CASCADE,
        description TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        deleted_at  INTEGER
      ) STRICT;
      CREATE INDEX categories_by_client ON categories (client_id) WHERE deleted_at IS NULL;

      CREATE TABLE pois (
        id            INTEGER PRIMARY KEY,
        client_id     TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
        name          TEXT NOT NULL,
        description   TEXT,
        lat           REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
        lng           REAL NOT NULL CHECK (lng BETWEEN -180 AND 180),
        elevation     REAL,
        accuracy      REAL,
        vaccuracy     REAL,
        address       TEXT,
        cross_street  TEXT,
        city          TEXT,
        country       TEXT,
        postal_code   TEXT,
        phone         TEXT,
        twitter       TEXT,
        created_by    TEXT REFERENCES members(id) ON DELETE SET NULL,
        registered_at INTEGER NOT NULL,
        updated_at    INTEGER NOT NULL
      ) STRICT;
      CREATE INDEX pois_by_client ON pois (client_id, id);
      CREATE INDEX pois_by_city ON pois (client_id, city COLLATE NOCASE);
      CREATE INDEX pois_by_country ON pois (client_id, country COLLATE NOCASE);
      CREATE INDEX pois_by_postal_code ON pois (client_id, postal_code COLLATE NOCASE);

      -- R*Tree boxes are 32-bit floats rounded outwards: a superset, filtered exactly afterwards.
      CREATE VIRTUAL TABLE pois_rtree USING rtree(id, min_lat, max_lat, min_lng, max_lng);

      CREATE TABLE poi_categories (
        poi_id      INTEGER NOT NULL REFERENCES pois(id) ON DELETE CASCADE,
        category_id INTEGER NOT NULL REFERENCES categories(id),
        PRIMARY KEY (poi_id, category_id)
      ) STRICT, WITHOUT ROWID;
      CREATE INDEX poi_categories_by_category ON poi_categories (category_id, poi_id);

      CREATE TABLE warnings (
        id         INTEGER PRIMARY KEY,
        poi_id     INTEGER NOT NULL REFERENCES pois(id) ON DELETE CASCADE,
        type       TEXT NOT NULL CHECK (type IN ('CLOSED', 'DUPLICATED', 'WRONG_INDICATOR', 'WRONG_INFO')),
        member_id  TEXT REFERENCES members(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        data       TEXT CHECK (data IS NULL OR json_valid(data))
      ) STRICT;
      CREATE INDEX warnings_by_poi ON warnings (poi_id, type);

      -- The R*Tree is kept in step with pois by triggers, so no code path can forget it.
      CREATE TRIGGER pois_rtree_insert AFTER INSERT ON pois BEGIN
        INSERT INTO pois_rtree VALUES (NEW.id, NEW.lat, NEW.lat, NEW.lng, NEW.lng);
      END;
      CREATE TRIGGER pois_rtree_move AFTER UPDATE OF lat, lng ON pois BEGIN
        UPDATE pois_rtree SET min_lat = NEW.lat, max_lat = NEW.lat, min_lng = NEW.lng, max_lng = NEW.lng WHERE id = NEW.id;
      END;
      CREATE TRIGGER pois_rtree_delete AFTER DELETE ON pois BEGIN
        DELETE FROM pois_rtree WHERE id = OLD.id;
      END;
    `);
    const insert = db.prepare('INSERT INTO categories (id, client_id, description, created_at) VALUES (?, NULL, ?, 0)');
    SYSTEM_CATEGORIES_002.forEach((description, i) => insert.run(i + 1, description));
  },
};
