import type { PoolClient } from 'pg';
import type { Device } from '../devices.js';
import { uniqueKeys, type SyncedEntity } from '../../../shared/sync-entities.js';
import { tableOf } from './entities.js';
import { keyColumns, type RowState } from './rows.js';

/** A conflict as a push records it (the conflicts table's row, less what the push itself gives). */
export interface Conflict {
  kind: 'field' | 'delete' | 'clash';
  entity: SyncedEntity;
  uuid: string;
  field: string | null;
  base: unknown;
  mine: unknown;
  theirs: unknown;
  other_device: string | null;
  other_uuid: string | null;
  /** What the central kept, when not what its policy says (a creation of a row it has keeps its own). */
  kept?: 'mine' | 'theirs';
}

/**
 * The clashes a push makes: a live row it wrote whose unique value (a member's username or
 * e-mail, a category's name, folded as both sides fold them) another live row of the client
 * already holds, on the central or in the same push. Desktops registered the two apart, so
 * neither is refused: both are kept and the clash is recorded, once per pair and field while it
 * stays open, for a person to rename one or merge the two (protocol/resolve.ts). Pushes of one
 * client apply one at a time (push.ts), so no clash slips between two of them.
 */
export async function findClashes(db: PoolClient, clientId: string, rows: readonly RowState[]): Promise<Conflict[]> {
  const found: Conflict[] = [];
  for (const entity of ['member', 'category'] as const) {
    const written = rows.filter((r) => r.entity === entity && r.dirty && !r.deleted);
    if (written.length === 0) continue;
    const inPush = new Map(rows.filter((r) => r.entity === entity).map((r) => [r.uuid, r]));
    const { rows: open } = await db.query<{ entity_uuid: string; other_uuid: string; field: string }>(
      "SELECT entity_uuid::text, other_uuid::text, field FROM conflicts WHERE client_id = $1 AND kind = 'clash' AND entity = $2 AND resolved_at IS NULL",
      [clientId, entity],
    );
    const recorded = new Set(open.flatMap((c) => [`${c.field} ${c.entity_uuid} ${c.other_uuid}`, `${c.field} ${c.other_uuid} ${c.entity_uuid}`]));
    for (const key of uniqueKeys(entity)) {
      const folded = written.map((r) => keyColumns(entity, r.fields)[key.column]!);
      const { rows: holders } = await db.query<{ uuid: string; value: string; key: string; written_by: string | null }>(
        `SELECT uuid::text, ${key.field} AS value, ${key.column} AS key, written_by::text FROM ${tableOf(entity)} WHERE client_id = $1 AND ${key.column} = ANY($2::text[]) AND deleted_at IS NULL`,
        [clientId, [...new Set(folded)]],
      );
      // The rows of this push as it leaves them, the others as the central holds them.
      const others = [
        ...holders.filter((h) => !inPush.has(h.uuid)),
        ...[...inPush.values()].filter((r) => !r.deleted).map((r) => ({ uuid: r.uuid, value: String(r.fields[key.field]), key: keyColumns(entity, r.fields)[key.column]!, written_by: r.writtenBy })),
      ];
      written.forEach((row, i) => {
        for (const other of others) {
          if (other.uuid === row.uuid || other.key !== folded[i] || recorded.has(`${key.field} ${row.uuid} ${other.uuid}`)) continue;
          recorded.add(`${key.field} ${row.uuid} ${other.uuid}`).add(`${key.field} ${other.uuid} ${row.uuid}`);
          found.push({ kind: 'clash', entity, uuid: row.uuid, field: key.field, base: null, mine: row.fields[key.field] ?? null, theirs: other.value, other_device: other.written_by, other_uuid: other.uuid });
        }
      });
    }
  }
  return found;
}

/** Conflicts found by a push or a resolution, recorded as the device's, with what the central kept. */
export async function recordConflicts(db: PoolClient, device: Device, kept: 'mine' | 'theirs', conflicts: readonly Conflict[]): Promise<void> {
  if (conflicts.length === 0) return;
  await db.query(
    `INSERT INTO conflicts (client_id, kind, entity, entity_uuid, field, base, mine, theirs, device_id, other_device_id, other_uuid, kept)
     SELECT $1, x.kind, x.entity, x.uuid, x.field, x.base, x.mine, x.theirs, $2, x.other_device, x.other_uuid, coalesce(x.kept, $3)
     FROM jsonb_to_recordset($4::jsonb) AS x(kind text, entity text, uuid uuid, field text, base jsonb, mine jsonb, theirs jsonb, other_device uuid, other_uuid uuid, kept text)`,
    [device.clientId, device.id, kept, JSON.stringify(conflicts)],
  );
}
