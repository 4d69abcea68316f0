import type { PoolClient } from 'pg';
import { SYNC_ENTITIES, SYNCED_ENTITIES, uniqueKeys, type FieldValue, type SyncedEntity } from '../../../shared/sync-entities.js';
import type { PushedChange } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { deletionField, fieldsOf, selectField, tableOf, typeOf, writeField } from './entities.js';

/** A row as one push sees it: read once, changed in memory change after change, written once. */
export interface RowState {
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
  /** The device whose push wrote it last. */
  writtenBy: string | null;
  /** The fields another device wrote last than `writtenBy` (field: device): who wrote a value a conflict meets. */
  writers: Record<string, string>;
  /** The row as the pushing desktop holds it, sent with its last change of this row. */
  state?: PushedChange['state'];
  /** The pushing desktop holds exactly this row: its pulls skip it. */
  echo: boolean;
}

/**
 * The rows of these entities and uuids as they are now (a row the central does not have: not
 * existing, empty); `foreign` names the first that belongs to another client application.
 */
export async function readRows(
  db: PoolClient,
  clientId: string,
  wanted: ReadonlyArray<{ entity: SyncedEntity; uuid: string }>,
): Promise<{ rows: Map<string, RowState>; foreign?: { entity: SyncedEntity; uuid: string } }> {
  const rows = new Map<string, RowState>();
  for (const entity of SYNCED_ENTITIES) {
    const uuids = [...new Set(wanted.filter((c) => c.entity === entity).map((c) => c.uuid))];
    if (uuids.length === 0) continue;
    const columns = fieldsOf(entity).map((f) => selectField(entity, f));
    const deletion = deletionField(entity);
    const tombstone = deletion ? '' : ', round(extract(epoch FROM deleted_at) * 1000)::float8 AS tombstoned_at';
    const { rows: found } = await db.query<Record<string, FieldValue> & { uuid: string; client_id: string; written_by: string | null; writers: Record<string, string>; tombstoned_at?: number | null }>(
      `SELECT uuid::text, client_id::text, written_by::text, writers, ${columns.join(', ')}${tombstone} FROM ${tableOf(entity)} WHERE uuid = ANY($1::uuid[])`,
      [uuids],
    );
    const byUuid = new Map(found.map((r) => [r.uuid, r]));
    for (const uuid of uuids) {
      const row = byUuid.get(uuid);
      if (row && row.client_id !== clientId) return { rows, foreign: { entity, uuid } };
      const fields: Record<string, FieldValue> = {};
      for (const f of fieldsOf(entity)) fields[f] = row?.[f] ?? null;
      const deleted = row ? (deletion ? fields[deletion] !== null : row.tombstoned_at != null) : false;
      rows.set(`${entity}:${uuid}`, { entity, uuid, fields, deleted, deletedAt: row?.tombstoned_at ?? null, existed: row !== undefined, dirty: false, touched: false, at: 0, writtenBy: row?.written_by ?? null, writers: { ...(row?.writers ?? {}) }, echo: false });
    }
  }
  return { rows };
}

/**
 * A device wrote these fields of a row: each field then says who wrote it last (the row's writer
 * for most, `writers` for the ones someone else wrote since), which a conflict names as its other side.
 */
export function markWritten(row: RowState, device: string, fields: readonly string[]): void {
  if (row.writtenBy !== null && row.writtenBy !== device) {
    for (const f of fieldsOf(row.entity)) if (!fields.includes(f) && !(f in row.writers)) row.writers[f] = row.writtenBy;
  }
  for (const f of fields) delete row.writers[f];
  for (const [f, who] of Object.entries(row.writers)) if (who === device) delete row.writers[f];
  row.writtenBy = device;
}

/** The device that wrote a field's current value, when the central knows it. */
export const writerOf = (row: RowState, field: string): string | null => row.writers[field] ?? row.writtenBy;

/** The folded values of an entity's unique fields, as the central indexes them (members' usernames, a category's name). */
export function keyColumns(entity: SyncedEntity, fields: Readonly<Record<string, FieldValue>>): Record<string, string> {
  return Object.fromEntries(uniqueKeys(entity).map((k) => [k.column, k.fold(String(fields[k.field] ?? ''))]));
}

/**
 * New rows in one INSERT per table, changed rows in one UPDATE per table, each a JSON record set;
 * every written row moves up the change sequence, says who wrote it and whose echo it is.
 */
export async function writeRows(db: PoolClient, device: Device, rows: readonly RowState[]): Promise<void> {
  for (const entity of SYNCED_ENTITIES) {
    const table = tableOf(entity);
    const fields = fieldsOf(entity);
    const keys = uniqueKeys(entity).map((k) => k.column);
    const deletion = deletionField(entity);
    const recordType = ['uuid uuid', 'at float8', 'tombstoned_at float8', 'echo boolean', 'writers jsonb', ...keys.map((k) => `${k} text`), ...fields.map((f) => `${f} ${typeOf(entity, f)}`)].join(', ');
    const record = (r: RowState): Record<string, unknown> => ({ uuid: r.uuid, at: r.at, tombstoned_at: r.deleted ? r.deletedAt : null, echo: r.echo, writers: r.writers, ...keyColumns(entity, r.fields), ...r.fields });
    const tombstoneColumn = deletion ? [] : ['deleted_at'];
    const tombstoneValue = deletion ? [] : ['to_timestamp(x.tombstoned_at / 1000)'];
    /** Who already holds the row as written: the pushing device, when its digest matched. */
    const echo = (device: string): string => `CASE WHEN x.echo THEN ${device}::uuid END`;
    const inserts = rows.filter((r) => r.entity === entity && !r.existed && r.dirty);
    if (inserts.length > 0) {
      const { created } = SYNC_ENTITIES[entity];
      const createdColumn = fields.includes(created) ? [] : [created];
      await db.query(
        `INSERT INTO ${table} (uuid, client_id, updated_at, written_by, writers, echo_of, ${[...createdColumn, ...tombstoneColumn, ...keys, ...fields].join(', ')})
         SELECT x.uuid, $1, to_timestamp(x.at / 1000), $2, x.writers, ${echo('$2')}, ${[...createdColumn.map(() => 'to_timestamp(x.at / 1000)'), ...tombstoneValue, ...keys.map((k) => `x.${k}`), ...fields.map((f) => writeField(entity, f, `x.${f}`))].join(', ')}
         FROM jsonb_to_recordset($3::jsonb) AS x(${recordType})`,
        [device.clientId, device.id, JSON.stringify(inserts.map(record))],
      );
    }
    const updates = rows.filter((r) => r.entity === entity && r.existed && r.dirty);
    if (updates.length > 0) {
      const sets = [...fields.map((f) => `${f} = ${writeField(entity, f, `x.${f}`)}`), ...keys.map((k) => `${k} = x.${k}`), ...tombstoneColumn.map((c) => `${c} = ${tombstoneValue[0]}`)];
      await db.query(
        `UPDATE ${table} t SET ${sets.join(', ')}, updated_at = to_timestamp(x.at / 1000), version = t.version + 1, seq = nextval('change_seq'),
           written_by = $1, writers = x.writers, echo_of = ${echo('$1')}
         FROM jsonb_to_recordset($2::jsonb) AS x(${recordType}) WHERE t.uuid = x.uuid`,
        [device.id, JSON.stringify(updates.map(record))],
      );
    }
    const touched = rows.filter((r) => r.entity === entity && r.existed && r.touched && !r.dirty).map((r) => r.uuid);
    if (touched.length > 0) await db.query(`UPDATE ${table} SET seq = nextval('change_seq'), echo_of = NULL WHERE uuid = ANY($1::uuid[])`, [touched]);
  }
}
