import type { Database, Statement } from 'better-sqlite3';
import { pulledRow, type PulledRow } from '../../../shared/sync.js';
import type { SetAsideRow } from '../../../shared/contract.js';
import type { Clock } from '../clock.js';

/**
 * Pulled rows this desktop could not apply (migration 014's sync_set_aside), each with its
 * reason: kept, not lost, so that the rest of their page applies and the sync goes on, tried
 * again at every sync (inbox.ts retry), shown in the Sync panel and `sync status`. A newer
 * version of the row replaces the one kept.
 */
export class SetAside {
  private readonly put: Statement;
  private readonly del: Statement<[string, string]>;
  private readonly ofClient: Statement<[string], { row: string }>;
  private readonly listed: Statement<[string], { entity: PulledRow['entity']; uuid: string; reason: string; at: number; row: string }>;
  private readonly count: Statement<[string], number>;
  private readonly keyList: Statement<[string], { entity: string; uuid: string }>;

  constructor(
    db: Database,
    private readonly clock: Clock,
  ) {
    this.put = db.prepare(
      `INSERT INTO sync_set_aside (entity, uuid, client_id, seq, row, reason, at) VALUES (@entity, @uuid, @client_id, @seq, @row, @reason, @at)
       ON CONFLICT (entity, uuid) DO UPDATE SET seq = excluded.seq, row = excluded.row, reason = excluded.reason, client_id = excluded.client_id`,
    );
    this.del = db.prepare('DELETE FROM sync_set_aside WHERE entity = ? AND uuid = ?');
    this.ofClient = db.prepare('SELECT row FROM sync_set_aside WHERE client_id = ? ORDER BY seq');
    this.listed = db.prepare('SELECT entity, uuid, reason, at, row FROM sync_set_aside WHERE client_id = ? ORDER BY seq LIMIT 200');
    this.count = db.prepare<[string], number>('SELECT count(*) FROM sync_set_aside WHERE client_id = ?').pluck();
    this.keyList = db.prepare('SELECT entity, uuid FROM sync_set_aside WHERE client_id = ?');
  }

  keep(clientId: string, row: PulledRow, reason: string): void {
    this.put.run({ entity: row.entity, uuid: row.uuid, client_id: clientId, seq: row.seq, row: JSON.stringify(row), reason, at: this.clock.now() });
  }

  clear(entity: PulledRow['entity'], uuid: string): void {
    this.del.run(entity, uuid);
  }

  /** The rows kept for a client, oldest first, as they were pulled (checked again: the file is as untrusted as the central). */
  rows(clientId: string): PulledRow[] {
    return this.ofClient.all(clientId).flatMap(({ row }) => {
      const parsed = pulledRow.safeParse(JSON.parse(row));
      return parsed.success ? [parsed.data] : [];
    });
  }

  /** The rows kept aside for a client, as `entity:uuid`. */
  keys(clientId: string): Set<string> {
    if (this.size(clientId) === 0) return new Set();
    return new Set(this.keyList.all(clientId).map((r) => `${r.entity}:${r.uuid}`));
  }

  size(clientId: string): number {
    return this.count.get(clientId) ?? 0;
  }

  /** The first 200, for a person to read. */
  list(clientId: string): SetAsideRow[] {
    return this.listed.all(clientId).map((r) => {
      const fields = (JSON.parse(r.row) as PulledRow).fields;
      const label = fields.name ?? fields.description ?? fields.username ?? null;
      return { entity: r.entity, uuid: r.uuid, reason: r.reason, at: r.at, label: typeof label === 'string' ? label : null };
    });
  }
}
