import type { PoolClient } from 'pg';
import { fieldOf, fieldProblem, missingRequired, sortedRefs, type FieldValue } from '../../../shared/sync-entities.js';
import { deviceOfOp, sameRow, type ConflictPolicy, type LogMark, type PushedChange, type PushReply, type RefusedChange } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { Refusal } from '../refusal.js';
import { deletionField, sameBase, sameValue } from './entities.js';
import { findClashes, type Conflict } from './clashes.js';
import { readRows, writeRows, type RowState } from './rows.js';

/**
 * Applies one push inside the caller's transaction, which holds the client's lock (push.ts).
 *
 * Each change is checked first: an operation id of another device, or a row of another client
 * application, refuses the whole push (403: no honest desktop sends either). A change whose
 * values break the API's rules (400), or that updates a row the central never had (409), is
 * refused alone and listed in the reply; the rest applies. Operations applied before (a retried
 * push) are skipped; a refused one is not recorded as applied, so a retry hears the refusal again.
 *
 * The rows a push touches are read once, each change merged in memory in order, field by field
 * against its base (the value the desktop last saw): the central's value equal to the base, only
 * the desktop changed it (applied); equal to mine, already applied; else both changed it (a
 * conflict, kept under the client's policy). A delete carries every field's base, so an edit its
 * desktop never saw is a conflict. Two live rows that would share a unique value (a username, an
 * e-mail, a category's name) are a clash, recorded as a conflict: both are kept. Then each table
 * is written in one statement. A row whose merged digest equals the `state` its pusher sent is
 * marked as that device's echo: its pulls skip it.
 */
export async function applyPush(db: PoolClient, device: Device, policy: ConflictPolicy, changes: readonly PushedChange[], mark?: LogMark): Promise<PushReply> {
  const foreign = changes.find((c) => deviceOfOp(c.op) !== device.id);
  if (foreign) throw new Refusal('FORBIDDEN', `change ${foreign.op} names the operations of another device: a device pushes its own only`);
  // Recorded as applied in the same statement that tells which were (one round trip); the ones refused below are taken out again.
  const { rows: fresh } = await db.query<{ op_id: string }>(
    'INSERT INTO applied_ops (device_id, op_id) SELECT $1, op FROM unnest($2::text[]) AS op ON CONFLICT DO NOTHING RETURNING op_id',
    [device.id, changes.map((c) => c.op)],
  );
  const todo = new Set(fresh.map((r) => r.op_id));
  const pending = changes.filter((c) => todo.has(c.op));
  const { rows, foreign: other } = await readRows(db, device.clientId, pending);
  if (other) {
    const change = pending.find((c) => c.entity === other.entity && c.uuid === other.uuid)!;
    throw new Refusal('FORBIDDEN', `change ${change.op} names ${other.entity} ${other.uuid}, which belongs to another client application: nothing of this push was kept`);
  }
  const known = await knownCategories(db, device.clientId, pending, rows);

  const conflicts: Conflict[] = [];
  const refused: RefusedChange[] = [];
  for (const change of pending) {
    const row = rows.get(`${change.entity}:${change.uuid}`)!;
    const problem = checkChange(change, row, known);
    if (problem) {
      refused.push({ op: change.op, entity: change.entity, uuid: change.uuid, ...problem });
      continue;
    }
    // Merged on a copy: a change whose result would break a rule (a required field emptied) is refused whole.
    const trial: RowState = { ...row, fields: { ...row.fields } };
    const found: Conflict[] = [];
    merge(trial, change, policy, found, device.id);
    // Each value was checked above, and the central's own were when written: what remains is a required field left empty.
    const broken = trial.deleted ? undefined : missingRequired(change.entity, trial.fields);
    if (broken) {
      refused.push({ op: change.op, entity: change.entity, uuid: change.uuid, status: 400, field: broken.field, message: `${broken.field} ${broken.message}` });
      continue;
    }
    Object.assign(row, trial);
    row.state = change.state;
    conflicts.push(...found);
  }
  for (const row of rows.values()) row.echo = row.dirty && row.state !== undefined && !row.touched && sameRow(row.entity, row.deleted ? 'deleted' : row.fields, row.state);
  conflicts.push(...(await findClashes(db, device.clientId, [...rows.values()])));
  await writeRows(db, device, [...rows.values()]);
  if (conflicts.length > 0) {
    await db.query(
      `INSERT INTO conflicts (client_id, kind, entity, entity_uuid, field, base, mine, theirs, device_id, other_device_id, other_uuid, kept)
       SELECT $1, x.kind, x.entity, x.uuid, x.field, x.base, x.mine, x.theirs, $2, x.other_device, x.other_uuid, $3
       FROM jsonb_to_recordset($4::jsonb) AS x(kind text, entity text, uuid uuid, field text, base jsonb, mine jsonb, theirs jsonb, other_device uuid, other_uuid uuid)`,
      [device.clientId, device.id, policy === 'manual' ? 'theirs' : 'mine', JSON.stringify(conflicts)],
    );
  }
  // A refused change is not applied: a retry of the same push hears its refusal again.
  if (refused.length > 0) await db.query('DELETE FROM applied_ops WHERE device_id = $1 AND op_id = ANY($2::text[])', [device.id, refused.map((r) => r.op)]);
  if (mark) await db.query('UPDATE devices SET mark_op = $2, mark_seq = $3 WHERE id = $1', [device.id, mark.op, mark.seq]);
  return { applied: changes.length - refused.length, conflicts: conflicts.length, refused };
}

/** The categories a POI of this push may name: the system ones, and the client's own (on the central, or created by this push). */
async function knownCategories(db: PoolClient, clientId: string, changes: readonly PushedChange[], rows: ReadonlyMap<string, RowState>): Promise<Set<string>> {
  const named = new Set<string>();
  for (const c of changes) for (const [, mine] of c.fields.categories ? [c.fields.categories] : []) if (Array.isArray(mine)) mine.forEach((r) => named.add(r));
  const known = new Set<string>();
  const systems = [...named].filter((r) => r.startsWith('system:')).map((r) => Number(r.slice(7)));
  if (systems.length > 0) {
    const { rows: found } = await db.query<{ id: number }>('SELECT id FROM system_categories WHERE id = ANY($1::int[])', [systems]);
    found.forEach((r) => known.add(`system:${r.id}`));
  }
  const own = [...named].filter((r) => !r.startsWith('system:'));
  if (own.length > 0) {
    const { rows: found } = await db.query<{ uuid: string }>('SELECT uuid::text FROM categories WHERE client_id = $1 AND uuid = ANY($2::uuid[])', [clientId, own]);
    found.forEach((r) => known.add(r.uuid));
  }
  for (const row of rows.values()) if (row.entity === 'category') known.add(row.uuid);
  return known;
}

/** Why one change cannot apply, or undefined: its values by the API's rules, its categories, the row it needs. */
function checkChange(change: PushedChange, row: RowState, known: ReadonlySet<string>): Omit<RefusedChange, 'op' | 'entity' | 'uuid'> | undefined {
  const there = row.existed || row.dirty;
  if (change.kind === 'update' && !there) {
    return { status: 409, field: null, message: `the central has no ${change.entity} ${change.uuid} to update (its creation was refused, or never sent): send it whole again` };
  }
  if (change.kind === 'delete') return undefined;
  for (const [field, [, mine]] of Object.entries(change.fields)) {
    // Null is judged on the merged row: an optional field may be emptied, a required one not.
    if (mine === null) continue;
    const problem = fieldProblem(change.entity, field, mine);
    if (problem) return { status: 400, field, message: `${field} ${problem}` };
    if (fieldOf(change.entity, field)?.kind === 'refs' && Array.isArray(mine)) {
      const unknown = mine.find((ref) => !known.has(ref));
      if (unknown) return { status: 400, field, message: `${field} names ${unknown}, which is no category of this client application` };
    }
  }
  return undefined;
}

/** One change merged into its row's state, by the rules above. */
function merge(row: RowState, change: PushedChange, policy: ConflictPolicy, conflicts: Conflict[], device: string): void {
  const conflict = (kind: Conflict['kind'], field: string | null, base: unknown, mine: unknown, theirs: unknown): void => {
    conflicts.push({ kind, entity: change.entity, uuid: change.uuid, field, base, mine, theirs, other_device: row.writtenBy, other_uuid: null });
    if (policy === 'manual') row.touched = true;
  };
  const wrote = (): void => {
    row.dirty = true;
    row.at = change.at;
    row.writtenBy = device;
  };
  const set = (values: Record<string, FieldValue>): void => {
    Object.assign(row.fields, values);
    wrote();
  };
  const tombstone = (): void => {
    row.deleted = true;
    row.deletedAt = change.at;
    const deletion = deletionField(change.entity);
    if (deletion) row.fields[deletion] = change.at;
    wrote();
  };
  const mine: Record<string, FieldValue> = {};
  const bases: Record<string, FieldValue> = {};
  for (const [f, [base, value]] of Object.entries(change.fields)) {
    mine[f] = fieldOf(change.entity, f)?.kind === 'refs' && Array.isArray(value) ? sortedRefs(value) : value;
    bases[f] = base;
  }

  if (!row.existed && !row.dirty) {
    if (change.kind !== 'delete') set(mine);
    return;
  }
  if (change.kind === 'delete') {
    if (row.deleted) return;
    // Changed here since the desktop last saw it: an edit against a delete.
    const edited = Object.entries(bases).some(([f, base]) => !sameBase(change.entity, f, row.fields[f], base));
    if (edited) {
      conflict('delete', null, bases, 'deleted', { ...row.fields });
      if (policy === 'manual') return;
    }
    tombstone();
    return;
  }
  const deletion = deletionField(change.entity);
  if (row.deleted && !(deletion && deletion in change.fields)) {
    // A create of a deleted row is its deliberate return (an undo of its delete, a resolution).
    // An edit of it is an edit against a delete: last writer wins brings it back with the edit.
    if (change.kind !== 'create') {
      conflict('delete', null, bases, mine, 'deleted');
      if (policy === 'manual') return;
    }
    row.deleted = false;
    row.deletedAt = null;
    set(mine);
    return;
  }
  const next: Record<string, FieldValue> = {};
  for (const [field, value] of Object.entries(mine)) {
    const theirs = row.fields[field] ?? null;
    if (sameValue(theirs, value)) continue;
    if (sameBase(change.entity, field, theirs, bases[field])) {
      next[field] = value;
      continue;
    }
    conflict('field', field, bases[field], value, theirs);
    if (policy === 'last-writer-wins') next[field] = value;
  }
  if (Object.keys(next).length > 0) set(next);
  if (deletion) row.deleted = row.fields[deletion] !== null;
}
