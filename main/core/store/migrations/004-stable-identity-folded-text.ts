import type { Migration } from '../migration.js';

/**
 * The fold this migration filled the `_key` columns of existing rows with: a copy of `foldText`
 * of shared/text-fold.ts as it was, so that a later change of the live fold does not change
 * what this migration writes. The store writes and compares keys with the live fold, so the two
 * must agree (test/core/frozen-migrations.test.ts): a new fold needs a migration that refolds
 * every key.
 */
const ACCENTS_004 = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

export function foldText004(text: string): string {
  return text.normalize('NFKD').replace(ACCENTS_004, '').toLowerCase().toUpperCase().toLowerCase().normalize('NFC');
}

/** A random UUID (version 4) from SQLite's own generator: the default of every `uuid` column. */
export const SQL_UUID = `(lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-'
  || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))))`;

const POI_COLUMNS =
  'id, client_id, name, description, lat, lng, elevation, accuracy, vaccuracy, address, cross_street, city, country, postal_code, phone, twitter, created_by, registered_at, updated_at';

/**
 * Stable identity. Ids are never reused: an application holding POI 6 must not read someone
 * else's POI 6 after a delete, so POIs, categories and warnings get AUTOINCREMENT (SQLite
 * otherwise hands out max(id) + 1 again); ids deleted before this upgrade are not known and may
 * come back once. Each also gets a UUID (members already have one: their id), which stays the
 * same on every copy of the data (history, sync), and categories and warnings an `updated_at`.
 *
 * Text filters match case- and accent-insensitively in every script (`ávila` finds `Ávila`):
 * SQLite's NOCASE and LIKE fold ASCII only, so each filtered column gets a folded copy
 * (foldText004 above; the store's is shared/text-fold.ts), written by the store with the row
 * and indexed where the filter is exact.
 */
export const migration004: Migration = {
  version: 4,
  name: 'stable identity, folded text',
  rebuildsReferencedTables: true,
  up(db) {
    db.function('text_fold', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? foldText004(text) : null));
    db.exec(`
      CREATE TABLE pois_next (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        uuid            TEXT NOT NULL UNIQUE DEFAULT ${SQL_UUID},
        client_id       TEXT NOT NULL REFERENCES clients(id) ON DELETE CASCADE,
        name            TEXT NOT NULL,
        description     TEXT,
        lat             REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
        lng             REAL NOT NULL CHECK (lng BETWEEN -180 AND 180),
        elevation       REAL,
        accuracy        REAL,
        vaccuracy       REAL,
        address         TEXT,
        cross_street    TEXT,
        city            TEXT,
        country         TEXT,
        postal_code     TEXT,
        phone           TEXT,
        twitter         TEXT,
        created_by      TEXT REFERENCES members(id) ON DELETE SET NULL,
        registered_at   INTEGER NOT NULL,
        updated_at      INTEGER NOT NULL,
        name_key        TEXT NOT NULL,
        description_key TEXT,
        city_key        TEXT,
        country_key     TEXT,
        postal_code_key TEXT
      ) STRICT;
      INSERT INTO pois_next (${POI_COLUMNS}, name_key, description_key, city_key, country_key, postal_code_key)
        SELECT ${POI_COLUMNS}, text_fold(name), text_fold(description), text_fold(city), text_fold(country), text_fold(postal_code)
        FROM pois;
      DROP TABLE pois;
      ALTER TABLE pois_next RENAME TO pois;
      CREATE INDEX pois_by_client ON pois (client_id, id);
      CREATE INDEX pois_by_city ON pois (client_id, city_key);
      CREATE INDEX pois_by_country ON pois (client_id, country_key);
      CREATE INDEX pois_by_postal_code ON pois (client_id, postal_code_key);
      CREATE TRIGGER pois_rtree_insert AFTER INSERT ON pois BEGIN
        INSERT INTO pois_rtree VALUES (NEW.id, NEW.lat, NEW.lat, NEW.lng, NEW.lng);
      END;
      CREATE TRIGGER pois_rtree_move AFTER UPDATE OF lat, lng ON pois BEGIN
        UPDATE pois_rtree SET min_lat = NEW.lat, max_lat = NEW.lat, min_lng = NEW.lng, max_lng = NEW.lng WHERE id = NEW.id;
      END;
      CREATE TRIGGER pois_rtree_delete AFTER DELETE ON pois BEGIN
        DELETE FROM pois_rtree WHERE id = OLD.id;
      END;

      CREATE TABLE categories_next (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        uuid        TEXT NOT NULL UNIQUE DEFAULT ${SQL_UUID},
        client_id   TEXT REFERENCES clients(id) ON DELETE CASCADE,
        description TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL,
        deleted_at  INTEGER
      ) STRICT;
      INSERT INTO categories_next (id, client_id, description, created_at, updated_at, deleted_at)
        SELECT id, client_id, description, created_at, coalesce(deleted_at, created_at), deleted_at FROM categories;
      DROP TABLE categories;
      ALTER TABLE categories_next RENAME TO categories;
      CREATE INDEX categories_by_client ON categories (client_id) WHERE deleted_at IS NULL;

      CREATE TABLE warnings_next (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        uuid       TEXT NOT NULL UNIQUE DEFAULT ${SQL_UUID},
        poi_id     INTEGER NOT NULL REFERENCES pois(id) ON DELETE CASCADE,
        type       TEXT NOT NULL CHECK (type IN ('CLOSED', 'DUPLICATED', 'WRONG_INDICATOR', 'WRONG_INFO')),
        member_id  TEXT REFERENCES members(id) ON DELETE SET NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        data       TEXT CHECK (data IS NULL OR json_valid(data))
      ) STRICT;
      INSERT INTO warnings_next (id, poi_id, type, member_id, created_at, updated_at, data)
        SELECT id, poi_id, type, member_id, created_at, created_at, data FROM warnings;
      DROP TABLE warnings;
      ALTER TABLE warnings_next RENAME TO warnings;
      CREATE INDEX warnings_by_poi ON warnings (poi_id, type);
    `);
  },
};
