import type { Pool } from 'pg';
import type { ConflictPolicy, PushedChange, PushReply } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { applyPush } from './apply.js';

/** PostgreSQL's codes for a transaction that lost a race and may simply be run again. */
const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

/**
 * Applies one push in one transaction: all its changes, or none (a retried push finds the ones
 * already applied by their operation ids and skips them).
 *
 * The transaction first takes its client's lock (a transaction-scoped advisory lock on the
 * client's id), so pushes of one client apply one after another, on every instance of the
 * service: each compares its base values against what the previous push wrote (without it, two
 * pushes could both read the old value and one update would be lost, with no conflict), and
 * sequence numbers are committed in their order (without it, a pull could move its cursor past
 * a number still uncommitted and never see that row). Pushes of different clients do not wait
 * for each other.
 */
export async function push(pool: Pool, device: Device, changes: readonly PushedChange[]): Promise<PushReply> {
  for (let attempt = 1; ; attempt++) {
    const db = await pool.connect();
    // A connection lost while checked out also says so as an event; its queries fail with it.
    const ignore = (): void => undefined;
    db.on('error', ignore);
    try {
      await db.query('BEGIN');
      await db.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [device.clientId]);
      const { rows } = await db.query<{ conflict_policy: ConflictPolicy }>('SELECT conflict_policy FROM clients WHERE id = $1', [device.clientId]);
      const policy = rows[0]?.conflict_policy ?? 'last-writer-wins';
      const { conflicts } = await applyPush(db, device.clientId, device.id, policy, changes);
      await db.query('COMMIT');
      return { applied: changes.length, conflicts };
    } catch (error) {
      await db.query('ROLLBACK').catch(() => undefined);
      const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
      if (!RETRYABLE.has(code) || attempt === ATTEMPTS) throw error;
    } finally {
      db.off('error', ignore);
      db.release();
    }
  }
}
