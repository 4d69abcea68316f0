import type { PoolClient } from 'pg';
import { comparedOnDelete, fieldOf, fieldProblem, missingRequired, sortedRefs, type FieldValue } from '../../../shared/sync-entities.js';
import { deviceOfOp, sameRow, type ConflictPolicy, type LogMark, type PushedChange, type PushReply, type RefusedChange } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { Refusal } from '../refusal.js';
import { deletionField, sameBase, sameValue } from './entities.js';
import { findClashes, recordConflicts, type Conflict } from './clashes.js';
import { unknownCategories } from './categories.js';
import { markWritten, readRows, writeRows, writerOf, type RowState } from './rows.js';

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
  for (const pushed of pending) {
    const row = rows.get(`${pushed.entity}:${pushed.uuid}`)!;
    const change = asCreation(pushed, row);
    const problem = checkChange(change, row, known);
    if (problem) {
      refused.push({ op: change.op, entity: change.entity, uuid: change.uuid, ...problem });
      continue;
    }
    // Merged on a copy: a change whose result would break a rule (a required field emptied) is refused whole.
    const trial: RowState = { ...row, fields: { ...row.fields }, writers: { ...row.writers } };
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
  for (const row of rows.values()) {
    if (row.state === undefined || !(row.existed || row.dirty)) continue;
    const same = sameRow(row.entity, row.deleted ? 'deleted' : row.fields, row.state);
    row.echo = row.dirty && same && !row.touched;
    // The desktop lacks something of this row (a pull that left it alone while it had a change to send): moved up, so it pulls it.
    if (!same) row.touched = true;
  }
  conflicts.push(...(await findClashes(db, device.clientId, [...rows.values()])));
  await writeRows(db, device, [...rows.values()]);
  await recordConflicts(db, device, policy === 'manual' ? 'theirs' : 'mine', conflicts);
  // A refused change is not applied: a retry of the same push hears its refusal again.
  if (refused.length > 0) await db.query('DELETE FROM applied_ops WHERE device_id = $1 AND op_id = ANY($2::text[])', [device.id, refused.map((r) => r.op)]);
  if (mark) await db.query('UPDATE devices SET mark_op = $2, mark_seq = $3 WHERE id = $1', [device.id, mark.op, mark.seq]);
  return { applied: changes.length - refused.length, conflicts: conflicts.length, refused };
}

/** The categories a POI of this push may name: the system ones, and the client's own (on the central, or created by this push). */
async function knownCategories(db: PoolClient, clientId: string, changes: readonly PushedChange[], rows: ReadonlyMap<string, RowState>): Promise<Set<string>> {
  const named = new Set<string>();
  for (const c of changes) {
    for (const ref of [...(Array.isArray(c.fields.categories?.[1]) ? c.fields.categories[1] : []), ...(typeof c.state === 'object' && Array.isArray(c.state.categories) ? c.state.categories : [])]) named.add(ref);
  }
  const unknown = new Set(await unknownCategories(db, clientId, [...named]));
  for (const row of rows.values()) if (row.entity === 'category') unknown.delete(row.uuid);
  return new Set([...named].filter((r) => !unknown.has(r)));
}

/**
 * An update of a row the central never had (its creation was refused, then the row was changed
 * again on its desktop) that carries the whole row as its state: taken as that row's creation,
 * so a row once refused gets in when it is fixed.
 */
function asCreation(change: PushedChange, row: RowState): PushedChange {
  if (change.kind !== 'update' || row.existed || row.dirty || typeof change.state !== 'object') return change;
  return { ...change, kind: 'create', fields: Object.fromEntries(Object.entries(change.state).map(([f, v]) => [f, [null, v]])) };
}

/** Why one change cannot apply, or undefined: its values by the API's rules, its categories, the row it needs. */
function checkChange(change: PushedChange, row: RowState, known: ReadonlySet<string>): Omit<RefusedChange, 'op' | 'entity' | 'uuid'> | undefined {
  const there = row.existed || row.dirty;
  if (change.kind === 'update' && !there) {
    return { status: 409, field: null, message: `the central has no ${change.entity} ${change.uuid} to update (its creation was refused, or never sent): change it again on its desktop to send it whole` };
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
  // The other side is whoever wrote the value met: a field's writer, or for a whole row its last writer.
  const conflict = (kind: Conflict['kind'], field: string | null, base: unknown, mine: unknown, theirs: unknown): void => {
    conflicts.push({ kind, entity: change.entity, uuid: change.uuid, field, base, mine, theirs, other_device: field === null ? row.writtenBy : writerOf(row, field), other_uuid: null });
    if (policy === 'manual') row.touched = true;
  };
  const set = (values: Record<string, FieldValue>): void => {
    Object.assign(row.fields, values);
    markWritten(row, device, Object.keys(values));
    row.dirty = true;
    row.at = change.at;
  };
  const tombstone = (): void => {
    row.deleted = true;
    row.deletedAt = change.at;
    const deletion = deletionField(change.entity);
    if (deletion) row.fields[deletion] = change.at;
    markWritten(row, device, deletion ? [deletion] : []);
    row.dirty = true;
    row.at = change.at;
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
    // Changed here since the desktop last saw it: an edit against a delete. A creation time changes for no one.
    const edited = comparedOnDelete(change.entity).some((f) => f in bases && !sameBase(change.entity, f, row.fields[f], bases[f]));
    if (edited) {
      conflict('delete', null, bases, 'deleted', { ...row.fields });
      if (policy === 'manual') return;
    }
    tombstone();
    return;
  }
  const deletion = deletionField(change.entity);
  if (row.deleted && !(deletion && deletion in change.fields)) {
    // A create of a row this device deleted itself is its deliberate return (an undo of its delete).
    // Anything else meets another's delete: an edit against a delete, which last writer wins brings back with the edit.
    if (change.kind !== 'create' || row.writtenBy !== device) {
      conflict('delete', null, bases, mine, 'deleted');
      if (policy === 'manual') return;
    }
    row.deleted = false;
    row.deletedAt = null;
    set(mine);
    return;
  }
  if (change.kind === 'create') {
    // The creation of a row the central already has live: a data folder copied to a second desktop,
    // or restored to before its first sync, sending what it holds. The central's values stay (they
    // are what every desktop shares); each one that differs is a conflict, so neither is lost unseen.
    for (const [field, value] of Object.entries(mine)) {
      if (fieldOf(change.entity, field)?.fixed || sameValue(row.fields[field], value)) continue;
      conflicts.push({ kind: 'field', entity: change.entity, uuid: change.uuid, field, base: null, mine: value, theirs: row.fields[field] ?? null, other_device: writerOf(row, field), other_uuid: null, kept: 'theirs' });
    }
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
