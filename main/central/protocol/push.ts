import type { Pool } from 'pg';
import type { LogMark, PushedChange, PushReply } from '../../../shared/sync.js';
import type { Device } from '../devices.js';
import { applyPush } from './apply.js';
import { inClientTransaction } from './client-lock.js';

/**
 * Applies one push in one transaction under its client's lock: all its accepted changes, or
 * none (a retried push finds the ones already applied by their operation ids and skips them).
 */
export function push(pool: Pool, device: Device, changes: readonly PushedChange[], mark?: LogMark): Promise<PushReply> {
  return inClientTransaction(pool, device.clientId, (db, policy) => applyPush(db, device, policy, changes, mark));
}
