/**
 * The change log's triggers, generated from a declaration per logged table, for the migrations
 * that create them (007, 008, 010, 014) and for them only: it lives among the migrations so that
 * no live code of the store depends on it or changes it. The SQL a migration generates is part of
 * that migration, so what this file generates for a given declaration and shape must never
 * change: a new form of trigger is a new `LogShape` flag (as `undoes`, `opId` and `fingerprints`
 * were), or a copy of this file under the name of the migration that needs it.
 */

/** How the log names one table's rows, as SQL over the row (`R` stands for NEW or OLD). */
export interface Logged {
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
  /** Columns (among `columns`) whose text is JSON, recorded as JSON rather than as a string. */
  json?: readonly string[];
  /**
   * Columns recorded by a delete only, so that the tombstone holds the whole row (undo brings it
   * back as it was): bookkeeping that every update touches and no history needs to show.
   */
  tombstone?: readonly string[];
}

/** What the log's rows hold beyond the entity's fields, by schema version (a migration's SQL must not change later). */
export interface LogShape {
  /** Since version 10: which change (seq) this one reverses, from `change_undoes()`. */
  undoes?: boolean;
  /** Since version 14: the change's own id, unique over all time and devices, from `change_op_id()` (sync's operation id). */
  opId?: boolean;
  /** Since version 14: a secret column (a password hash) is logged as `(secret fp:…)`, its fingerprint from `change_fingerprint()`, which sync compares bases by. */
  fingerprints?: boolean;
}

/**
 * The client of a row that belongs to a POI. When the POI's delete cascades to its links and
 * reports, the POI row is already gone: its last logged change still names the client.
 */
export const POI_CLIENT =
  '(SELECT coalesce((SELECT client_id FROM pois WHERE id = R.poi_id), (SELECT client_id FROM changes WHERE poi_id = R.poi_id AND client_id IS NOT NULL ORDER BY seq DESC LIMIT 1)))';

const row = (expr: string, r: 'NEW' | 'OLD'): string => expr.replace(/\bR\./g, `${r}.`);

/**
 * `{"column": [old, new], ...}` of the columns that changed (a create: those set; a delete:
 * those that were set), built by string concatenation: json_array quotes each value, and the
 * trigger runs with every write, where building and filtering a JSON object costs ten times more.
 */
function fieldsJson(t: Logged, op: 'create' | 'update' | 'delete', shape: LogShape): string {
  const pair = (c: string, name: string, oldValue: string, newValue: string): string => {
    const changed = op === 'update' ? `OLD.${c} IS NOT NEW.${c}` : `${op === 'create' ? 'NEW' : 'OLD'}.${c} IS NOT NULL`;
    return `CASE WHEN ${changed} THEN '"${name}":' || json_array(${oldValue}, ${newValue}) || ',' ELSE '' END`;
  };
  const of = (r: 'OLD' | 'NEW', c: string): string => (t.json?.includes(c) ? `json(${r}.${c})` : `${r}.${c}`);
  const value = (c: string): string => pair(c, c, op === 'create' ? 'NULL' : of('OLD', c), op === 'delete' ? 'NULL' : of('NEW', c));
  const hidden = (r: 'OLD' | 'NEW', c: string): string => (shape.fingerprints ? `'(secret ' || change_fingerprint(${r}.${c}) || ')'` : "'(secret)'");
  const secret = (c: string): string =>
    pair(c, c === 'pwd_hash' ? 'password' : c, op === 'create' ? 'NULL' : hidden('OLD', c), op === 'delete' ? 'NULL' : hidden('NEW', c));
  const tombstone = op === 'delete' ? (t.tombstone ?? []).map(value) : [];
  const entries = [...t.columns.map(value), ...(t.secret ?? []).map(secret), ...tombstone].join(' || ');
  return `'{' || rtrim(${entries}, ',') || '}'`;
}

export function triggers(t: Logged, shape: LogShape = {}): string {
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
        INSERT INTO changes (at, entity, entity_id, entity_uuid, client_id, poi_id, op, fields, actor_kind, actor_id${shape.undoes ? ', undoes' : ''}${shape.opId ? ', op_id' : ''})
        VALUES (change_now(), '${t.entity}', ${row(t.id, r)}, ${row(t.uuid, r)}, ${row(t.client, r)}, ${row(t.poi, r)}, '${op}',
          ${fieldsJson(t, op, shape)}, change_actor_kind(), change_actor_id()${shape.undoes ? ', change_undoes()' : ''}${shape.opId ? ', change_op_id()' : ''});
      END;`;
    })
    .join('\n');
}

