import type { Pool } from 'pg';
import { uniqueKeys, type SyncedEntity } from '../../../shared/sync-entities.js';
import type { ConflictReply } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { tableOf } from './entities.js';

interface ConflictRow {
  id: string;
  kind: ConflictReply['kind'];
  entity: SyncedEntity;
  entity_uuid: string;
  field: string | null;
  base: ConflictReply['base'];
  mine: ConflictReply['mine'];
  theirs: ConflictReply['theirs'];
  device_id: string | null;
  device_name: string | null;
  other_device_id: string | null;
  other_device_name: string | null;
  other_uuid: string | null;
  at: Date;
  kept: ConflictReply['kept'];
  label: string | null;
  other_label: string | null;
}

/** What a person calls a row of this client (never another client's, whatever uuid a conflict holds). */
const label = (alias: string, uuid: string): string =>
  `(SELECT coalesce(${['name FROM pois', 'description FROM categories', 'username FROM members'].map((what) => `(SELECT ${what} WHERE uuid = ${uuid} AND client_id = c.client_id)`).join(', ')})) AS ${alias}`;

/** The client's conflicts nobody has resolved yet, oldest first, with the names of the devices on each side. */
export async function openConflicts(pool: Pool, clientId: string): Promise<ConflictReply[]> {
  await closeGoneClashes(pool, clientId);
  const { rows } = await pool.query<ConflictRow>(
    `SELECT c.id, c.kind, c.entity, c.entity_uuid::text, c.field, c.base, c.mine, c.theirs, c.at, c.kept,
       c.device_id::text, d.name AS device_name, c.other_device_id::text, o.name AS other_device_name, c.other_uuid::text,
       ${label('label', 'c.entity_uuid')}, ${label('other_label', 'c.other_uuid')}
     FROM conflicts c
     LEFT JOIN devices d ON d.id = c.device_id
     LEFT JOIN devices o ON o.id = c.other_device_id
     WHERE c.client_id = $1 AND c.resolved_at IS NULL ORDER BY c.id`,
    [clientId],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    kind: r.kind,
    entity: r.entity,
    uuid: r.entity_uuid,
    label: r.label,
    field: r.field,
    base: r.base,
    mine: r.mine,
    theirs: r.theirs,
    device: r.device_id,
    device_name: r.device_name,
    other_device: r.other_device_id,
    other_device_name: r.other_device_name,
    other_uuid: r.other_uuid,
    other_label: r.other_label,
    at: r.at.toISOString(),
    kept: r.kept,
  }));
}

/**
 * A clash that is no more (one of the two rows renamed or deleted since, by any path) is closed,
 * saying so: it needs no one's choice.
 */
async function closeGoneClashes(pool: Pool, clientId: string): Promise<void> {
  const { rows } = await pool.query<{ id: string; entity: SyncedEntity; field: string; entity_uuid: string; other_uuid: string }>(
    "SELECT id, entity, field, entity_uuid::text, other_uuid::text FROM conflicts WHERE client_id = $1 AND kind = 'clash' AND resolved_at IS NULL",
    [clientId],
  );
  for (const c of rows) {
    const key = uniqueKeys(c.entity).find((k) => k.field === c.field);
    if (!key) continue;
    const { rows: both } = await pool.query<{ n: string }>(
      `SELECT count(DISTINCT ${key.column}) AS n FROM ${tableOf(c.entity)} WHERE uuid IN ($1, $2) AND deleted_at IS NULL HAVING count(*) = 2`,
      [c.entity_uuid, c.other_uuid],
    );
    if (both[0]?.n === '1') continue;
    await pool.query("UPDATE conflicts SET resolved_at = now(), resolution = '{\"gone\": true}'::jsonb WHERE id = $1 AND resolved_at IS NULL", [c.id]);
  }
}

/**
 * Marks a conflict resolved without changing data (desktops from before conflicts were resolved on
 * the central wrote the outcome themselves, then said so here); `resolve.ts` resolves on the
 * central.
 */
export async function markResolved(pool: Pool, device: Device, id: number, resolution: unknown): Promise<boolean> {
  if (!Number.isInteger(id)) return false;
  const { rowCount } = await pool.query(
    'UPDATE conflicts SET resolved_at = now(), resolved_by = $3, resolution = $4::jsonb WHERE id = $1 AND client_id = $2 AND resolved_at IS NULL',
    [id, device.clientId, device.id, JSON.stringify(resolution)],
  );
  return (rowCount ?? 0) > 0;
}
