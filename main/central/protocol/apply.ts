import type { PoolClient } from 'pg';
import { SYNCED_ENTITIES, UNCOMPARED_FIELDS, type ConflictPolicy, type FieldValue, type PushedChange, type SyncedEntity } from '../../../shared/sync.js';
import { deletionIsField, fieldsOf, sameValue, selectField, TABLES, writeField } from './entities.js';

/** A row as this push sees it: read once, changed in memory change after change, written once. */
interface RowState {
  entity: SyncedEntity;
  uuid: string;
  fields: Record<string, FieldValue>;
  deleted: boolean;
  /** When it was deleted, epoch ms, for a tombstone column. */
  deletedAt: number | null;
  existed: boolean;
  dirty: boolean;
  /** Kept as it is, but moved up the change sequence (manual policy: the pushing desktop pulls it back). */
  touched: boolean;
  at: number;
}

interface Conflict {
  entity: SyncedEntity;
  uuid: string;
  field: string | null;
  base: unknown;
  mine: unknown;
  theirs: unknown;
}

/**
 * Applies one push inside the caller's transaction, which holds the client's lock (push.ts): the
 * rows it touches are read once, each change merged in memory in order, field by field against
 * its base (the value the desktop last saw): the central's value equal to the base, only the
 * desktop changed it (applied); equal to mine, already applied; else both changed it (a
 * conflict, kept under the client's policy). Then each table is written in one statement, so a
 * push costs a handful of round trips, not a few per change. Changes whose operation id was
 * applied before (a retried push) are skipped.
 */
export async function applyPush(db: PoolClient, clientId: string, deviceId: string, policy: ConflictPolicy, changes: readonly PushedChange[]): Promise<{ conflicts: number }> {
  const { rows: fresh } = await db.query<{ op_id: string }>(
    'INSERT INTO applied_ops (op_id, device_id) SELECT op, $2 FROM unnest($1::text[]) AS op ON CONFLICT DO NOTHING RETURNING op_id',
    [changes.map((c) => c.op), deviceId],
  );
  const todo = new Set(fresh.map((r) => r.op_id));
  const pending = changes.filter((c) => todo.has(c.op));
  const rows = await readRows(db, clientId, pending);
  const conflicts: Conflict[] = [];
  for (const change of pending) merge(rows.get(`${change.entity}:${change.uuid}`)!, change, policy, conflicts);
  await writeRows(db, clientId, [...rows.values()]);
  if (conflicts.length > 0) {
    await db.query(
      `INSERT INTO conflicts (client_id, entity, entity_uuid, field, base, mine, theirs, device_id, kept)
       SELECT $1, x.entity, x.uuid, x.field, x.base, x.mine, x.theirs, $2, $3
       FROM jsonb_to_recordset($4::jsonb) AS x(entity text, uuid uuid, field text, base jsonb, mine jsonb, theirs jsonb)`,
      [clientId, deviceId, policy === 'manual' ? 'theirs' : 'mine', JSON.stringify(conflicts)],
    );
  }
  return { conflicts: conflicts.length };
}

async function readRows(db: PoolClient, clientId: string, changes: readonly PushedChange[]): Promise<Map<string, RowState>> {
  const rows = new Map<string, RowState>();
  for (const entity of SYNCED_ENTITIES) {
    const uuids = [...new Set(changes.filter((c) => c.entity === entity).map((c) => c.uuid))];
    if (uuids.length === 0) continue;
    const columns = fieldsOf(entity).map((f) => selectField(entity, f));
    const deletedAt = deletionIsField(entity) ? '' : ', round(extract(epoch FROM deleted_at) * 1000)::float8 AS tombstoned_at';
    const { rows: found } = await db.query<Record<string, FieldValue> & { uuid: string; client_id: string; tombstoned_at?: number | null }>(
      `SELECT uuid::text, client_id::text, ${columns.join(', ')}${deletedAt} FROM ${TABLES[entity].table} WHERE uuid = ANY($1::uuid[])`,
      [uuids],
    );
    const byUuid = new Map(found.map((r) => [r.uuid, r]));
    for (const uuid of uuids) {
      const row = byUuid.get(uuid);
      if (row && row.client_id !== clientId) throw new Error(`${entity} ${uuid} belongs to another client application`);
      const fields: Record<string, FieldValue> = {};
      for (const f of fieldsOf(entity)) fields[f] = row?.[f] ?? null;
      const deleted = row ? (deletionIsField(entity) ? fields.deleted_at !== null : row.tombstoned_at != null) : false;
      rows.set(`${entity}:${uuid}`, { entity, uuid, fields, deleted, deletedAt: row?.tombstoned_at ?? null, existed: row !== undefined, dirty: false, touched: false, at: 0 });
    }
  }
  return rows;
}

/** One change merged into its row's state, by the rules above. */
function merge(row: RowState, change: PushedChange, policy: ConflictPolicy, conflicts: Conflict[]): void {
  const conflict = (field: string | null, base: unknown, mine: unknown, theirs: unknown): void => {
    conflicts.push({ entity: change.entity, uuid: change.uuid, field, base, mine, theirs });
    if (policy === 'manual') row.touched = true;
  };
  const set = (values: Record<string, FieldValue>): void => {
    Object.assign(row.fields, values);
    row.dirty = true;
    row.at = change.at;
  };
  const tombstone = (): void => {
    row.deleted = true;
    row.deletedAt = change.at;
    if (deletionIsField(change.entity)) row.fields.deleted_at = change.at;
    row.dirty = true;
    row.at = change.at;
  };
  const mine = Object.fromEntries(Object.entries(change.fields).map(([f, [, m]]) => [f, m]));
  const live = row.existed || row.dirty;

  if (!live) {
    if (change.kind === 'delete') return;
    set(mine);
    return;
  }
  if (change.kind === 'delete') {
    if (row.deleted) return;
    // Changed here since the desktop last saw it: an edit against a delete.
    const edited = Object.entries(change.fields).some(([f, [base]]) => !UNCOMPARED_FIELDS.includes(f) && !sameValue(row.fields[f], base));
    if (edited) {
      conflict(null, Object.fromEntries(Object.entries(change.fields).map(([f, [base]]) => [f, base])), 'deleted', { ...row.fields });
      if (policy === 'manual') return;
    }
    tombstone();
    return;
  }
  if (row.deleted && !(deletionIsField(change.entity) && 'deleted_at' in change.fields)) {
    // An edit of a row deleted here (by another desktop): last writer wins brings it back with the edit.
    conflict(null, null, mine, 'deleted');
    if (policy === 'manual') return;
    row.deleted = false;
    row.deletedAt = null;
    set(mine);
    return;
  }
  const next: Record<string, FieldValue> = {};
  for (const [field, [base, value]] of Object.entries(change.fields)) {
    const theirs = row.fields[field] ?? null;
    if (sameValue(theirs, value)) continue;
    if (sameValue(theirs, base) || change.kind === 'create' || UNCOMPARED_FIELDS.includes(field)) {
      next[field] = value;
      continue;
    }
    conflict(field, base, value, theirs);
    if (policy === 'last-writer-wins') next[field] = value;
  }
  if (Object.keys(next).length > 0) set(next);
  if (deletionIsField(change.entity)) row.deleted = row.fields.deleted_at !== null;
}

/** New rows in one INSERT per table, changed rows in one UPDATE per table, each a JSON record set. */
async function writeRows(db: PoolClient, clientId: string, rows: readonly RowState[]): Promise<void> {
  for (const entity of SYNCED_ENTITIES) {
    const { table, types, created } = TABLES[entity];
    const fields = fieldsOf(entity);
    const recordType = ['uuid uuid', 'at float8', 'tombstoned_at float8', ...fields.map((f) => `${f} ${types[f]}`)].join(', ');
    const record = (r: RowState): Record<string, unknown> => ({ uuid: r.uuid, at: r.at, tombstoned_at: r.deleted ? r.deletedAt : null, ...r.fields });
    const tombstoneColumn = deletionIsField(entity) ? [] : ['deleted_at'];
    const tombstoneValue = deletionIsField(entity) ? [] : ['to_timestamp(x.tombstoned_at / 1000)'];
    const inserts = rows.filter((r) => r.entity === entity && !r.existed && r.dirty);
    if (inserts.length > 0) {
      const createdColumn = fields.includes(created) ? [] : [created];
      await db.query(
        `INSERT INTO ${table} (uuid, client_id, updated_at, ${[...createdColumn, ...tombstoneColumn, ...fields].join(', ')})
         SELECT x.uuid, $1, to_timestamp(x.at / 1000), ${[...createdColumn.map(() => 'to_timestamp(x.at / 1000)'), ...tombstoneValue, ...fields.map((f) => writeField(entity, f, `x.${f}`))].join(', ')}
         FROM jsonb_to_recordset($2::jsonb) AS x(${recordType})`,
        [clientId, JSON.stringify(inserts.map(record))],
      );
    }
    const updates = rows.filter((r) => r.entity === entity && r.existed && r.dirty);
    if (updates.length > 0) {
      const sets = [...fields.map((f) => `${f} = ${writeField(entity, f, `x.${f}`)}`), ...tombstoneColumn.map((c) => `${c} = ${tombstoneValue[0]}`)];
      await db.query(
        `UPDATE ${table} t SET ${sets.join(', ')}, updated_at = to_timestamp(x.at / 1000), version = t.version + 1, seq = nextval('change_seq')
         FROM jsonb_to_recordset($1::jsonb) AS x(${recordType}) WHERE t.uuid = x.uuid`,
        [JSON.stringify(updates.map(record))],
      );
    }
    const touched = rows.filter((r) => r.entity === entity && r.existed && r.touched && !r.dirty).map((r) => r.uuid);
    if (touched.length > 0) await db.query(`UPDATE ${table} SET seq = nextval('change_seq') WHERE uuid = ANY($1::uuid[])`, [touched]);
  }
}
