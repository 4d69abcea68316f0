import type { Database, Statement } from 'better-sqlite3';
import { SYSTEM, type WritePath } from '../store/write-path.js';
import type { RefusedRow } from '../../../shared/contract.js';
import type { RefusedChange } from '../../../shared/sync.js';
import type { Clock } from '../clock.js';

/**
 * This desktop's changes the central refused (migration 014's sync_refused), each with its
 * reason: the sync goes on past them, and they stay in view (the Sync panel, `sync status`)
 * until the row is changed again here or the list is cleared.
 */
export class SyncRefusals {
  private readonly put: Statement;
  private readonly listed: Statement<[string], RefusedRow>;
  private readonly count: Statement<[string], number>;
  private readonly ofRow: Statement<[string, string]>;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
  ) {
    this.put = db.prepare(
      `INSERT INTO sync_refused (op, entity, uuid, client_id, status, field, message, at) VALUES (@op, @entity, @uuid, @client_id, @status, @field, @message, @at)
       ON CONFLICT (op) DO UPDATE SET status = excluded.status, field = excluded.field, message = excluded.message`,
    );
    this.listed = db.prepare('SELECT op, entity, uuid, status, field, message, at FROM sync_refused WHERE client_id = ? ORDER BY at, op LIMIT 200');
    this.count = db.prepare<[string], number>('SELECT count(*) FROM sync_refused WHERE client_id = ?').pluck();
    this.ofRow = db.prepare('DELETE FROM sync_refused WHERE entity = ? AND uuid = ?');
  }

  keep(clientId: string, refused: readonly RefusedChange[]): void {
    this.writes.now(SYSTEM, () => {
      for (const r of refused) this.put.run({ ...r, client_id: clientId, at: this.clock.now() });
    });
  }

  /** A row the central accepted a later change of is no longer refused. */
  accepted(entity: string, uuid: string): void {
    this.writes.now(SYSTEM, () => this.ofRow.run(entity, uuid));
  }

  size(clientId: string): number {
    return this.count.get(clientId) ?? 0;
  }

  list(clientId: string): RefusedRow[] {
    return this.listed.all(clientId);
  }
}
