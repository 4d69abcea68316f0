import type { Pool, PoolClient } from 'pg';
import { z } from 'zod';
import { fieldOf, fieldProblem, rowProblem, sortedRefs, uniqueKeys, type FieldValue, type SyncedEntity } from '../../../shared/sync-entities.js';
import { fieldValue, type Resolution } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { Refusal } from '../refusal.js';
import { findClashes, recordConflicts, type Conflict } from './clashes.js';
import { unknownCategories } from './categories.js';
import { inClientTransaction } from './client-lock.js';
import { deletionField, sameValue, tableOf } from './entities.js';
import { keyColumns, markWritten, readRows, writeRows, writerOf, type RowState } from './rows.js';

interface StoredConflict {
  id: string;
  kind: Conflict['kind'];
  entity: SyncedEntity;
  entity_uuid: string;
  field: string | null;
  mine: unknown;
  theirs: unknown;
  kept: 'mine' | 'theirs';
  other_uuid: string | null;
  resolved_at: Date | null;
}

const invalid = (message: string): Refusal => new Refusal('INVALID_PARAMETER', message);

/** The edit side of an edit against a delete, as the conflict keeps it: its fields. */
const editSide = z.record(z.string(), fieldValue);

/**
 * Resolves a conflict on the central, in one transaction under the client's lock: the outcome is
 * written as a new version of the rows concerned (so every desktop pulls it, whatever it holds),
 * the conflict is marked resolved with who resolved it and how.
 *
 * A field keeps the chosen side or value. When the field changed again since the conflict (a
 * later edit, made by someone who saw the central's choice), the chosen value is still written,
 * and that later value, unless the resolving device wrote it, is recorded in a new conflict, so it
 * stays in view. An edit against a
 * delete keeps the delete (the row deleted) or the edit (the row back under its uuid, with the
 * edit's values over its last ones). A clash renames one row (checked by the field's rule and
 * against the other rows) or merges the two (the dropped row's references move to the kept one,
 * and it is deleted); the other clashes of the same pair close with it.
 */
export function resolveOnCentral(pool: Pool, device: Device, id: number, resolution: Resolution): Promise<{ id: number; conflicts: number }> {
  return inClientTransaction(pool, device.clientId, async (db) => {
    const { rows: found } = await db.query<StoredConflict>(
      'SELECT id, kind, entity, entity_uuid::text, field, mine, theirs, kept, other_uuid::text, resolved_at FROM conflicts WHERE id = $1 AND client_id = $2 FOR UPDATE',
      [id, device.clientId],
    );
    const c = found[0];
    if (!c) throw new Refusal('NOT_FOUND', `no conflict ${id} in this client application`);
    if (c.resolved_at) throw new Refusal('CONFLICT', `conflict ${id} was already resolved`);
    const wanted = [{ entity: c.entity, uuid: c.entity_uuid }, ...(c.other_uuid ? [{ entity: c.entity, uuid: c.other_uuid }] : [])];
    const { rows } = await readRows(db, device.clientId, wanted);
    const row = rows.get(`${c.entity}:${c.entity_uuid}`)!;
    const later: Conflict[] = [];
    const now = Date.now();
    const write = (r: RowState, values: Record<string, FieldValue>): void => {
      Object.assign(r.fields, values);
      markWritten(r, device.id, Object.keys(values));
      r.dirty = true;
      r.at = now;
    };

    if (c.kind === 'clash') {
      if ('rename' in resolution) await rename(db, device.clientId, c, rows, resolution.rename, write);
      else if ('merge' in resolution) await merge(db, device, c, rows, resolution.merge, now);
      else throw invalid('a clash is resolved by renaming one of the two, or merging them');
    } else if ('rename' in resolution || 'merge' in resolution) {
      throw invalid('only a clash of two rows is resolved by a rename or a merge');
    } else if (c.kind === 'delete') {
      if (!('keep' in resolution)) throw invalid('an edit against a delete is resolved by keeping the edit or the delete');
      const side = resolution.keep === 'pushed' ? c.mine : c.theirs;
      if (side === 'deleted') {
        if (row.existed && !row.deleted) tombstone(row, device.id, now);
      } else if (row.deleted) {
        const edit = editSide.safeParse(side);
        if (!edit.success) throw invalid(`conflict ${id} holds no edit to bring back`);
        row.deleted = false;
        row.deletedAt = null;
        const deletion = deletionField(c.entity);
        write(row, { ...edit.data, ...(deletion ? { [deletion]: null } : {}) });
        const broken = rowProblem(c.entity, row.fields);
        if (broken) throw invalid(`the edit cannot come back as it is: ${broken.field} ${broken.message}`);
      }
    } else {
      const field = c.field ?? '';
      const side = fieldValue.safeParse('keep' in resolution ? (resolution.keep === 'pushed' ? c.mine : c.theirs) : resolution.value);
      if (!side.success) throw invalid(`conflict ${id} holds no value of ${field} to keep`);
      const chosen = side.data;
      const normal = fieldOf(c.entity, field)?.kind === 'refs' && Array.isArray(chosen) ? sortedRefs(chosen) : chosen;
      const problem = fieldProblem(c.entity, field, normal);
      if (problem) throw invalid(`${field} ${problem}`);
      // A value of one's own is checked as a push's would be: categories this client has.
      const unknown = Array.isArray(normal) ? await unknownCategories(db, device.clientId, normal) : [];
      if (unknown.length > 0) throw invalid(`${field} names ${unknown.join(', ')}, which is no category of this client application`);
      const kept = fieldValue.safeParse(c.kept === 'mine' ? c.mine : c.theirs);
      const left = kept.success ? kept.data : null;
      const current = row.fields[field] ?? null;
      if (row.deleted) {
        // Deleted since: nothing to set. A delete against an edit is its own conflict.
      } else if (!sameValue(current, normal)) {
        // A later value the resolving device wrote itself (its own edit, or its own earlier resolution) is
        // overridden knowingly, as its own edits are: only someone else's stays in view as a conflict.
        if (!sameValue(current, left) && writerOf(row, field) !== device.id) later.push({ kind: 'field', entity: c.entity, uuid: c.entity_uuid, field, base: left, mine: normal, theirs: current, other_device: writerOf(row, field), other_uuid: null });
        write(row, { [field]: normal });
      }
    }
    later.push(...(await findClashes(db, device.clientId, [...rows.values()])));
    await writeRows(db, device, [...rows.values()]);
    await recordConflicts(db, device, 'mine', later);
    await db.query('UPDATE conflicts SET resolved_at = now(), resolved_by = $2, resolution = $3::jsonb WHERE id = $1', [id, device.id, JSON.stringify(resolution)]);
    return { id, conflicts: later.length };
  });
}

function tombstone(row: RowState, device: string, now: number): void {
  row.deleted = true;
  row.deletedAt = now;
  const deletion = deletionField(row.entity);
  if (deletion) row.fields[deletion] = now;
  markWritten(row, device, deletion ? [deletion] : []);
  row.dirty = true;
  row.at = now;
}

/** One of the two rows of a clash takes another value, which must pass the field's rule and be free. */
async function rename(
  db: PoolClient,
  clientId: string,
  c: StoredConflict,
  rows: ReadonlyMap<string, RowState>,
  to: { uuid: string; to: string },
  write: (r: RowState, values: Record<string, FieldValue>) => void,
): Promise<void> {
  if (to.uuid !== c.entity_uuid && to.uuid !== c.other_uuid) throw invalid('rename one of the two rows of the clash');
  const row = rows.get(`${c.entity}:${to.uuid}`);
  if (!row || row.deleted) throw new Refusal('CONFLICT', `${c.entity} ${to.uuid} was deleted since: nothing to rename`);
  const field = c.field!;
  const problem = fieldProblem(c.entity, field, to.to);
  if (problem) throw invalid(`${field} ${problem}`);
  const key = uniqueKeys(c.entity).find((k) => k.field === field)!;
  const folded = keyColumns(c.entity, { ...row.fields, [field]: to.to })[key.column]!;
  const { rows: taken } = await db.query<{ value: string }>(
    `SELECT ${field} AS value FROM ${tableOf(c.entity)} WHERE client_id = $1 AND ${key.column} = $2 AND deleted_at IS NULL AND uuid <> $3`,
    [clientId, folded, to.uuid],
  );
  if (taken[0]) throw new Refusal('ALREADY_EXISTS', `the ${key.label} ${taken[0].value} is taken too: choose another`);
  write(row, { [field]: to.to });
}

/**
 * The dropped row's references move to the kept one (a member's POIs and reports; a category's
 * POIs), each a new version of its row, and the dropped row is deleted.
 */
async function merge(db: PoolClient, device: Device, c: StoredConflict, rows: ReadonlyMap<string, RowState>, pair: { keep: string; drop: string }, now: number): Promise<void> {
  const both = new Set([c.entity_uuid, c.other_uuid]);
  if (!both.has(pair.keep) || !both.has(pair.drop) || pair.keep === pair.drop) throw invalid('merge names the two rows of the clash: one to keep, one to drop');
  const dropped = rows.get(`${c.entity}:${pair.drop}`)!;
  // The one field moved is the resolving device's (the others keep their writers).
  const moved = (field: string): string => `seq = nextval('change_seq'), version = version + 1, writers = writers || jsonb_build_object('${field}', $4::text), echo_of = NULL, updated_at = now()`;
  if (c.entity === 'member') {
    await db.query(`UPDATE pois SET created_by = $3, ${moved('created_by')} WHERE client_id = $1 AND created_by = $2`, [device.clientId, pair.drop, pair.keep, device.id]);
    await db.query(`UPDATE warnings SET member_id = $3, ${moved('member_id')} WHERE client_id = $1 AND member_id = $2`, [device.clientId, pair.drop, pair.keep, device.id]);
  } else {
    await db.query(
      `UPDATE pois SET categories = ARRAY(SELECT DISTINCT x FROM unnest(array_replace(categories, $2, $3)) AS x ORDER BY x), ${moved('categories')}
       WHERE client_id = $1 AND $2 = ANY(categories)`,
      [device.clientId, pair.drop, pair.keep, device.id],
    );
  }
  if (!dropped.deleted) tombstone(dropped, device.id, now);
  await db.query(
    "UPDATE conflicts SET resolved_at = now(), resolved_by = $4, resolution = $5::jsonb WHERE client_id = $1 AND kind = 'clash' AND resolved_at IS NULL AND id <> $6 AND ((entity_uuid = $2 AND other_uuid = $3) OR (entity_uuid = $3 AND other_uuid = $2))",
    [device.clientId, c.entity_uuid, c.other_uuid, device.id, JSON.stringify({ merge: pair }), c.id],
  );
}
