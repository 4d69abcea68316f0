import type { Migration } from '../migration.js';
import { POI_CLIENT, triggers, type Logged } from './frozen/007-change-triggers.js';

/**
 * What each table records, as of this schema version (008 changes the POIs').
 */
export const LOGGED_007: readonly Logged[] = [
  { table: 'clients', entity: 'client', id: 'R.id', uuid: 'R.id', client: 'R.id', poi: 'NULL', columns: ['name', 'implicit_flow'] },
  {
    table: 'members', entity: 'member', id: 'R.id', uuid: 'R.id', client: 'R.client_id', poi: 'NULL',
    columns: ['username', 'email', 'gender', 'birthday', 'email_verified'], secret: ['pwd_hash'],
  },
  {
    table: 'tokens', entity: 'token', id: 'lower(hex(R.hash))', uuid: 'NULL', client: 'R.client_id', poi: 'NULL',
    columns: ['role', 'member_id', 'expires_at', 'revoked_at'],
  },
  {
    table: 'pois', entity: 'poi', id: 'R.id', uuid: 'R.uuid', client: 'R.client_id', poi: 'R.id',
    columns: ['name', 'description', 'lat', 'lng', 'elevation', 'accuracy', 'vaccuracy', 'address', 'cross_street', 'city', 'country', 'postal_code', 'phone', 'twitter', 'created_by'],
  },
  {
    table: 'poi_categories', entity: 'poi_category', id: "R.poi_id || ':' || R.category_id", uuid: 'NULL',
    client: POI_CLIENT, poi: 'R.poi_id', columns: ['poi_id', 'category_id'],
  },
  { table: 'categories', entity: 'category', id: 'R.id', uuid: 'R.uuid', client: 'R.client_id', poi: 'NULL', columns: ['description', 'deleted_at'] },
  {
    table: 'warnings', entity: 'warning', id: 'R.id', uuid: 'R.uuid', client: POI_CLIENT, poi: 'R.poi_id',
    columns: ['poi_id', 'type', 'member_id', 'data'],
  },
  { table: 'settings', entity: 'setting', id: 'R.key', uuid: 'NULL', client: 'NULL', poi: 'NULL', columns: ['value'] },
];

/**
 * The change log: every write to an entity (client, member, token, POI and its category links,
 * category, warning, setting) appends a row in the same transaction, by triggers, so that no
 * code path can write without it: a sequence number, the entity and its ids, create / update /
 * delete, the fields changed with their old and new values (a password hash only as "(secret)";
 * tokens by the hex of their SHA-256, never in clear), who (change_actor_kind/_id) and when
 * (change_now). A delete keeps every old value: it is the entity's tombstone. History, undo,
 * export of changes and sync read this log. The three functions are the connection's: the core
 * registers them (main/core/store/write-path.ts); another program without them cannot write.
 */
export const migration007: Migration = {
  version: 7,
  name: 'change log',
  up(db) {
    db.exec(`
      ALTER TABLE clients ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
      UPDATE clients SET updated_at = created_at;
      ALTER TABLE members ADD COLUMN updated_at INTEGER NOT NULL DEFAULT 0;
      UPDATE members SET updated_at = registered_at;

      CREATE TABLE changes (
        seq         INTEGER PRIMARY KEY,
        at          INTEGER NOT NULL,
        entity      TEXT NOT NULL,
        entity_id   TEXT NOT NULL,
        entity_uuid TEXT,
        client_id   TEXT,
        poi_id      INTEGER,
        op          TEXT NOT NULL CHECK (op IN ('create', 'update', 'delete')),
        fields      TEXT NOT NULL CHECK (json_valid(fields)),
        actor_kind  TEXT NOT NULL CHECK (actor_kind IN ('member', 'administrator', 'console', 'import', 'sync', 'system')),
        actor_id    TEXT
      ) STRICT;
      CREATE INDEX changes_by_poi ON changes (poi_id, seq) WHERE poi_id IS NOT NULL;
      -- The last change of what the map and the POI panels show: max(seq) read from one index entry.
      CREATE INDEX changes_of_pois ON changes (seq) WHERE poi_id IS NOT NULL OR entity = 'category';
      CREATE INDEX changes_by_client ON changes (client_id, seq);
      ${LOGGED_007.map((t) => triggers(t)).join('\n')}
    `);
  },
};

