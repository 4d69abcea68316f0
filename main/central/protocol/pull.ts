import type { Pool } from 'pg';
import { SYNCED_ENTITIES, type FieldValue, type PulledRow, type PullReply, type SyncedEntity } from '../../../shared/sync.js';
import { fieldsOf, selectField, TABLES } from './entities.js';

/**
 * The client's rows changed after the cursor, in change-sequence order, a page at a time: each
 * row's current state or its tombstone. One query per entity, each walking its (client_id, seq)
 * index from the cursor, merged in order.
 */
export async function pull(pool: Pool, clientId: string, after: number, limit: number, count = false): Promise<PullReply> {
  const pages = await Promise.all(
    SYNCED_ENTITIES.map(async (entity) => {
      const columns = fieldsOf(entity).map((f) => selectField(entity, f));
      const { rows } = await pool.query<Record<string, FieldValue> & { uuid: string; seq: string; version: string; deleted: boolean }>(
        `SELECT uuid, seq, version, deleted_at IS NOT NULL AS deleted, ${columns.join(', ')}
         FROM ${TABLES[entity].table} WHERE client_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
        [clientId, after, limit + 1],
      );
      return rows.map((r): PulledRow => ({ entity, uuid: r.uuid, seq: Number(r.seq), version: Number(r.version), deleted: r.deleted, fields: pick(entity, r) }));
    }),
  );
  const merged = pages.flat().sort((a, b) => a.seq - b.seq);
  const rows = merged.slice(0, limit);
  const reply: PullReply = { rows, cursor: rows.at(-1)?.seq ?? after, more: merged.length > limit };
  if (count) {
    const counts = await Promise.all(
      SYNCED_ENTITIES.map((entity) => pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${TABLES[entity].table} WHERE client_id = $1 AND seq > $2`, [clientId, after])),
    );
    reply.remaining = counts.reduce((sum, r) => sum + Number(r.rows[0]!.n), 0);
  }
  return reply;
}

function pick(entity: SyncedEntity, row: Record<string, unknown>): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  for (const f of fieldsOf(entity)) fields[f] = (row[f] ?? null) as FieldValue;
  return fields;
}
