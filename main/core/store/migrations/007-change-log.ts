import type { Migration } from '../migration.js';

/** How the log names one table's rows, as SQL over the row (`R` stands for NEW or OLD). */
interface Logged {
  table: string;
  entity: string;
  id: string;
  uuid: string;
  client: string;
  poi: string;
  /** The columns whose values are recorded, old and new. */
  columns: readonly string[];
  /** Columns recorded as changed without their values (a password hash). */
  secret?: readonly string[];
}

/**
 * The client of a row that belongs to a POI. When the POI's delete cascades to its links and
 * reports, the POI row is already gone: its last logged change still names the client.
 */
const POI_CLIENT =
  '(SELECT coalesce((SELECT client_id FROM pois WHERE id = R.poi_id), (SELECT client_id FROM changes WHERE poi_id = R.poi_id AND client_id IS NOT NULL ORDER BY seq DESC LIMIT 1)))';

/**
 * What each table records, frozen as of this schema version: a later version that adds a column
 * recreates its table's triggers (test/core/change-log.test.ts fails until it does).
 */
const LOGGED: readonly Logged[] = [
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

const row = (expr: string, r: 'NEW' | 'OLD'): string => expr.replace(/\bR\./g, `${r}.`);

/**
 * `{"column": [old, new], ...}` of the columns that changed (a create: those set; a delete:
 * those that were set), built by string concatenation: json_array quotes each value, and the
 * trigger runs with every write, where building and filtering a JSON object costs ten times more.
 */
function fieldsJson(t: Logged, op: 'create' | 'update' | 'delete'): string {
  const pair = (c: string, name: string, oldValue: string, newValue: string): string => {
    const changed = op === 'update' ? `OLD.${c} IS NOT NEW.${c}` : `${op === 'create' ? 'NEW' : 'OLD'}.${c} IS NOT NULL`;
    return `CASE WHEN ${changed} THEN '"${name}":' || json_array(${oldValue}, ${newValue}) || ',' ELSE '' END`;
  };
  const value = (c: string): string => pair(c, c, op === 'create' ? 'NULL' : `OLD.${c}`, op === 'delete' ? 'NULL' : `NEW.${c}`);
  const secret = (c: string): string =>
    pair(c, c === 'pwd_hash' ? 'password' : c, op === 'create' ? 'NULL' : "'(secret)'", op === 'delete' ? 'NULL' : "'(secret)'");
  const entries = [...t.columns.map(value), ...(t.secret ?? []).map(secret)].join(' || ');
  return `'{' || rtrim(${entries}, ',') || '}'`;
}

function triggers(t: Logged): string {
  const events = [
    ['create', 'INSERT', 'NEW'],
    ['update', 'UPDATE', 'NEW'],
    ['delete', 'DELETE', 'OLD'],
  ] as const;
  return events
    .map(([op, event, r]) => {
      const watched = [...t.columns, ...(t.secret ?? [])];
      const when = op === 'update' ? ` WHEN ${watched.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ')}` : '';
      return `CREATE TRIGGER ${t.table}_logged_${op} AFTER ${event} ON ${t.table}${when} BEGIN
        INSERT INTO changes (at, entity, entity_id, entity_uuid, client_id, poi_id, op, fields, actor_kind, actor_id)
        VALUES (change_now(), '${t.entity}', ${row(t.id, r)}, ${row(t.uuid, r)}, ${row(t.client, r)}, ${row(t.poi, r)}, '${op}',
          ${fieldsJson(t, op)}, change_actor_kind(), change_actor_id());
      END;`;
    })
    .join('\n');
}

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
      ${LOGGED.map(triggers).join('\n')}
    `);
  },
};

/** For the test that every column of a logged table is recorded (or deliberately not). */
export const LOGGED_COLUMNS: ReadonlyMap<string, readonly string[]> = new Map(LOGGED.map((t) => [t.table, [...t.columns, ...(t.secret ?? [])]]));
