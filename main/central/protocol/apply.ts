import type { PoolClient } from 'pg';
import { UNCOMPARED_FIELDS, type ConflictPolicy, type FieldValue, type PushedChange } from '../../../shared/sync.js';
import { fieldsOf, sameValue, selectField, TABLES, writeField } from './entities.js';

interface CurrentRow {
  fields: Record<string, FieldValue>;
  deleted: boolean;
}

export interface Outcome {
  applied: boolean;
  conflicts: number;
}

/**
 * Applies one pushed change inside the caller's transaction, which holds the client's lock
 * (sync/push.ts): what it compares against is what the last push wrote.
 */
export async function applyChange(db: PoolClient, clientId: string, deviceId: string, policy: ConflictPolicy, change: PushedChange): Promise<Outcome> {
  const first = await db.query('INSERT INTO applied_ops (op_id, device_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING op_id', [change.op, deviceId]);
  if (first.rowCount === 0) return { applied: false, conflicts: 0 };
  const current = await lockRow(db, clientId, change);
  const conflict = (field: string | null, base: unknown, mine: unknown, theirs: unknown) =>
    db.query(
      `INSERT INTO conflicts (client_id, entity, entity_uuid, field, base, mine, theirs, device_id, kept)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::jsonb, $8, $9)`,
      [clientId, change.entity, change.uuid, field, JSON.stringify(base), JSON.stringify(mine), JSON.stringify(theirs), deviceId, policy === 'manual' ? 'theirs' : 'mine'],
    );
  const mine = Object.fromEntries(Object.entries(change.fields).map(([f, [, m]]) => [f, m]));

  if (!current) {
    if (change.kind === 'delete') return { applied: true, conflicts: 0 };
    await insertRow(db, clientId, change, mine);
    return { applied: true, conflicts: 0 };
  }
  if (change.kind === 'delete') {
    if (current.deleted) return { applied: true, conflicts: 0 };
    // Changed here since the desktop last saw it: an edit against a delete.
    const edited = Object.entries(change.fields).filter(([f, [base]]) => !UNCOMPARED_FIELDS.includes(f) && !sameValue(current.fields[f], base));
    if (edited.length > 0) {
      await conflict(null, Object.fromEntries(Object.entries(change.fields).map(([f, [base]]) => [f, base])), 'deleted', current.fields);
      if (policy === 'manual') return keptTheirs(db, change);
      await tombstone(db, change);
      return { applied: true, conflicts: 1 };
    }
    await tombstone(db, change);
    return { applied: true, conflicts: 0 };
  }
  if (current.deleted) {
    // An edit of a row deleted here (by another desktop): last writer wins brings it back with the edit.
    await conflict(null, null, mine, 'deleted');
    if (policy === 'manual') return keptTheirs(db, change);
    await updateRow(db, change, mine, true);
    return { applied: true, conflicts: 1 };
  }
  const next: Record<string, FieldValue> = {};
  let conflicts = 0;
  for (const [field, [base, value]] of Object.entries(change.fields)) {
    const theirs = current.fields[field] ?? null;
    if (sameValue(theirs, value)) continue;
    if (sameValue(theirs, base) || change.kind === 'create' || UNCOMPARED_FIELDS.includes(field)) {
      next[field] = value;
      continue;
    }
    conflicts++;
    await conflict(field, base, value, theirs);
    if (policy === 'last-writer-wins') next[field] = value;
  }
  if (Object.keys(next).length > 0) await updateRow(db, change, next, false);
  else if (conflicts > 0) await keptTheirs(db, change);
  return { applied: true, conflicts };
}

/**
 * The central kept its own value (manual policy): the row moves up the change sequence, unchanged,
 * so that the desktop that pushed pulls it again rather than keep a value the central refused.
 */
async function keptTheirs(db: PoolClient, change: PushedChange): Promise<Outcome> {
  await db.query(`UPDATE ${TABLES[change.entity].table} SET seq = nextval('change_seq') WHERE uuid = $1`, [change.uuid]);
  return { applied: true, conflicts: 1 };
}

async function lockRow(db: PoolClient, clientId: string, change: PushedChange): Promise<CurrentRow | undefined> {
  const { table } = TABLES[change.entity];
  const columns = fieldsOf(change.entity).map((f) => selectField(change.entity, f));
  const { rows } = await db.query<Record<string, FieldValue> & { deleted: boolean; client_id: string }>(
    `SELECT ${columns.join(', ')}, deleted_at IS NOT NULL AS deleted, client_id FROM ${table} WHERE uuid = $1`,
    [change.uuid],
  );
  const row = rows[0];
  if (!row) return undefined;
  if (row.client_id !== clientId) throw new Error(`${change.entity} ${change.uuid} belongs to another client application`);
  const fields: Record<string, FieldValue> = {};
  for (const f of fieldsOf(change.entity)) fields[f] = row[f] ?? null;
  return { fields, deleted: row.deleted };
}

async function insertRow(db: PoolClient, clientId: string, change: PushedChange, values: Record<string, FieldValue>): Promise<void> {
  const { table, created } = TABLES[change.entity];
  const fields = Object.keys(values);
  const params: unknown[] = [change.uuid, clientId, change.at, ...fields.map((f) => values[f])];
  const placeholders = fields.map((f, i) => writeField(change.entity, f, `$${i + 4}`));
  const createdColumn = fields.includes(created) ? [] : [created];
  await db.query(
    `INSERT INTO ${table} (uuid, client_id, updated_at, ${[...createdColumn, ...fields].join(', ')})
     VALUES ($1, $2, to_timestamp($3::float8 / 1000), ${[...createdColumn.map(() => 'to_timestamp($3::float8 / 1000)'), ...placeholders].join(', ')})`,
    params,
  );
}

async function updateRow(db: PoolClient, change: PushedChange, values: Record<string, FieldValue>, undelete: boolean): Promise<void> {
  const { table } = TABLES[change.entity];
  const fields = Object.keys(values);
  const sets = fields.map((f, i) => `${f} = ${writeField(change.entity, f, `$${i + 3}`)}`);
  if (undelete) sets.push('deleted_at = NULL');
  await db.query(
    `UPDATE ${table} SET ${sets.join(', ')}, updated_at = to_timestamp($2::float8 / 1000), version = version + 1, seq = nextval('change_seq') WHERE uuid = $1`,
    [change.uuid, change.at, ...fields.map((f) => values[f])],
  );
}

async function tombstone(db: PoolClient, change: PushedChange): Promise<void> {
  const { table } = TABLES[change.entity];
  await db.query(
    `UPDATE ${table} SET deleted_at = to_timestamp($2::float8 / 1000), updated_at = to_timestamp($2::float8 / 1000), version = version + 1, seq = nextval('change_seq') WHERE uuid = $1`,
    [change.uuid, change.at],
  );
}
