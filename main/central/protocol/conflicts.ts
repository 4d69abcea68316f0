import type { Pool } from 'pg';
import type { ConflictReply } from '../../../shared/sync.js';
import type { Device } from '../devices.js';

/** The client's conflicts nobody has resolved yet, oldest first. */
export async function openConflicts(pool: Pool, clientId: string): Promise<ConflictReply[]> {
  const { rows } = await pool.query<{
    id: string; entity: ConflictReply['entity']; entity_uuid: string; field: string | null;
    base: ConflictReply['base']; mine: ConflictReply['mine']; theirs: ConflictReply['theirs']; device_id: string | null; at: Date; kept: ConflictReply['kept'];
    label: string | null;
  }>(
    `SELECT c.id, c.entity, c.entity_uuid, c.field, c.base, c.mine, c.theirs, c.device_id, c.at, c.kept,
       coalesce(p.name, g.description, m.username) AS label
     FROM conflicts c
     LEFT JOIN pois p ON c.entity = 'poi' AND p.uuid = c.entity_uuid
     LEFT JOIN categories g ON c.entity = 'category' AND g.uuid = c.entity_uuid
     LEFT JOIN members m ON c.entity = 'member' AND m.uuid = c.entity_uuid
     WHERE c.client_id = $1 AND c.resolved_at IS NULL ORDER BY c.id`,
    [clientId],
  );
  return rows.map((r) => ({ id: Number(r.id), entity: r.entity, uuid: r.entity_uuid, label: r.label, field: r.field, base: r.base, mine: r.mine, theirs: r.theirs, device: r.device_id, at: r.at.toISOString(), kept: r.kept }));
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
