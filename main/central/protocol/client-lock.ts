import type { Pool, PoolClient } from 'pg';
import type { ConflictPolicy } from '../../../shared/sync.js';
import { errorCode } from '../pg-error.js';

/** PostgreSQL's codes for a transaction that lost a race and may simply be run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

/**
 * Runs `work` in one transaction that first takes its client's lock (a transaction-scoped
 * advisory lock on the client's id), so the writes of one client (pushes, resolutions) apply one
 * after another, on every instance of the service: each compares its base values against what
 * the previous one wrote (without it, two pushes could both read the old value and one update
 * would be lost, with no conflict), and sequence numbers are committed in their order (without
 * it, a pull could move its cursor past a number still uncommitted and never see that row).
 * Writes of different clients do not wait for each other. All of it, or none.
 */
export async function inClientTransaction<T>(pool: Pool, clientId: string, work: (db: PoolClient, policy: ConflictPolicy) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const db = await pool.connect();
    // A connection lost while checked out also says so as an event; its queries fail with it.
    const ignore = (): void => undefined;
    db.on('error', ignore);
    try {
      await db.query('BEGIN');
      await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [clientId]);
      const { rows } = await db.query<{ conflict_policy: ConflictPolicy }>('SELECT conflict_policy FROM clients WHERE id = $1', [clientId]);
      const result = await work(db, rows[0]?.conflict_policy ?? 'last-writer-wins');
      await db.query('COMMIT');
      return result;
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      if (!RETRYABLE.has(errorCode(error)) || attempt === ATTEMPTS) throw error;
    } finally {
      db.off('error', ignore);
      db.release();
    }
  }
}
