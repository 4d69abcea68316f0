import type { Pool } from 'pg';
import type { ConflictReply } from '../../../shared/sync.js';
import type { Device } from '../devices.js';

/** The client's conflicts nobody has resolved yet, oldest first. */
export async function openConflicts(pool: Pool, clientId: string): Promise<ConflictReply[]> {
  const { rows } = await pool.query<{
    id: string; entity: ConflictReply['entity']; entity_uuid: string; field: string | null;
    base: ConflictReply['base']; mine: ConflictReply['mine']; theirs: ConflictReply['theirs']; device_id: string | null; at: Date; kept: ConflictReply['kept'];
  }>('SELECT id, entity, entity_uuid, field, base, mine, theirs, device_id, at, kept FROM conflicts WHERE client_id = $1 AND resolved_at IS NULL ORDER BY id', [clientId]);
  return rows.map((r) => ({ id: Number(r.id), entity: r.entity, uuid: r.entity_uuid, field: r.field, base: r.base, mine: r.mine, theirs: r.theirs, device: r.device_id, at: r.at.toISOString(), kept: r.kept }));
}

/**
 * Marks a conflict resolved. The resolution itself is an ordinary change made on a desktop (with
 * its history there) and pushed like any other; this only records who closed the conflict and how.
 */
export async function resolveConflict(pool: Pool, device: Device, id: number, resolution: unknown): Promise<boolean> {
  if (!Number.isInteger(id)) return false;
  const { rowCount } = await pool.query(
    'UPDATE conflicts SET resolved_at = now(), resolved_by = $3, resolution = $4::jsonb WHERE id = $1 AND client_id = $2 AND resolved_at IS NULL',
    [id, device.clientId, device.id, JSON.stringify(resolution)],
  );
  return (rowCount ?? 0) > 0;
}
