import type { Pool, PoolClient } from 'pg';
import { SYNCED_ENTITIES, type FieldValue, type SyncedEntity } from '../../../shared/sync-entities.js';
import type { PulledRow, PullReply } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { fieldsOf, selectField, tableOf } from './entities.js';

export interface PullOptions {
  after: number;
  limit: number;
  /** Also say how many rows remain (a progress bar's total). */
  count?: boolean;
  /** Also give the rows this device already holds as they are (a restored desktop asks for them). */
  own?: boolean;
}

/**
 * The client's rows changed after the cursor, in change-sequence order, a page at a time: each
 * row's current state or its tombstone. One query per entity, each walking its (client_id, seq)
 * index from the cursor, merged in order. The asking device's own echoes (rows whose last write
 * was its push, left exactly as it holds them: apply.ts) are skipped, but the cursor moves past
 * them: they are neither sent, counted nor applied again.
 */
export async function pull(pool: Pool, device: Device, options: PullOptions): Promise<PullReply> {
  // One snapshot for every query of the page: read apart, a push committed between two of them
  // could put a row below the cursor this page hands out, and it would never be pulled.
  const db = await pool.connect();
  const ignore = (): void => undefined;
  db.on('error', ignore);
  try {
    await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const reply = await pullIn(db, device, options);
    await db.query('COMMIT');
    return reply;
  } catch (error) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    db.off('error', ignore);
    db.release();
  }
}

async function pullIn(db: PoolClient, device: Device, options: PullOptions): Promise<PullReply> {
  const { after, limit } = options;
  const pages: Array<Array<{ echo: boolean; row: PulledRow }>> = [];
  for (const entity of SYNCED_ENTITIES) {
    const columns = fieldsOf(entity).map((f) => selectField(entity, f));
    const { rows } = await db.query<Record<string, FieldValue> & { uuid: string; seq: string; version: string; deleted: boolean; echo: boolean }>(
      `SELECT uuid, seq, version, deleted_at IS NOT NULL AS deleted, echo_of IS NOT DISTINCT FROM $4::uuid AS echo, ${columns.join(', ')}
       FROM ${tableOf(entity)} WHERE client_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      [device.clientId, after, limit + 1, device.id],
    );
    pages.push(rows.map((r) => ({ echo: r.echo && !options.own, row: { entity, uuid: r.uuid, seq: Number(r.seq), version: Number(r.version), deleted: r.deleted, fields: pick(entity, r) } satisfies PulledRow })));
  }
  const merged = pages.flat().sort((a, b) => a.row.seq - b.row.seq);
  const page = merged.slice(0, limit);
  const reply: PullReply = { rows: page.filter((r) => !r.echo).map((r) => r.row), cursor: page.at(-1)?.row.seq ?? after, more: merged.length > limit };
  if (options.count) {
    const echo = options.own ? '' : ' AND echo_of IS DISTINCT FROM $3::uuid';
    let remaining = 0;
    for (const entity of SYNCED_ENTITIES) {
      const { rows } = await db.query<{ n: string }>(`SELECT count(*) AS n FROM ${tableOf(entity)} WHERE client_id = $1 AND seq > $2${echo}`, options.own ? [device.clientId, after] : [device.clientId, after, device.id]);
      remaining += Number(rows[0]?.n ?? 0);
    }
    reply.remaining = remaining;
  }
  return reply;
}

function pick(entity: SyncedEntity, row: Record<string, unknown>): Record<string, FieldValue> {
  const fields: Record<string, FieldValue> = {};
  for (const f of fieldsOf(entity)) fields[f] = (row[f] ?? null) as FieldValue;
  return fields;
}
