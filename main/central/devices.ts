import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';
import { UUID } from '../../shared/sync-entities.js';

/** A device's credential: `<device id>.<secret>`, shown once; the central keeps the secret's SHA-256 only. */
export interface NewDevice {
  device_id: string;
  client_id: string;
  name: string;
  credential: string;
}

export interface DeviceInfo {
  device_id: string;
  client_id: string;
  name: string;
  created_at: string;
  revoked_at: string | null;
  last_seen_at: string | null;
}

export interface Device {
  id: string;
  clientId: string;
  name?: string;
}

// 32 random bytes: a secret no one guesses, so a fast hash is enough (as for API tokens); a slow one would cost every request.
const hash = (secret: string): string => createHash('sha256').update(secret).digest('hex');
/** What an unknown device's secret is compared with: the hash of no secret anyone was given. */
const NO_SECRET = hash(randomBytes(32).toString('base64url'));

/** The devices that may sync with the central: issued and revoked by its administrator (CLI). */
export class Devices {
  constructor(private readonly pool: Pool) {}

  /** Issues a device credential for a client application, creating the client on the central if it is new there. */
  async add(clientId: string, name: string, clientName = name): Promise<NewDevice> {
    const id = randomUUID();
    const secret = randomBytes(32).toString('base64url');
    await this.pool.query('INSERT INTO clients (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [clientId, clientName]);
    await this.pool.query('INSERT INTO devices (id, client_id, name, secret_hash) VALUES ($1, $2, $3, $4)', [id, clientId, name, hash(secret)]);
    return { device_id: id, client_id: clientId, name, credential: `${id}.${secret}` };
  }

  async list(): Promise<DeviceInfo[]> {
    const { rows } = await this.pool.query<DeviceInfo>(
      `SELECT id AS device_id, client_id, name, created_at::text, revoked_at::text, last_seen_at::text FROM devices ORDER BY created_at, id`,
    );
    return rows;
  }

  /** Refused at its next request; false when there is no such device or it was already revoked. */
  async revoke(id: string): Promise<boolean> {
    const { rowCount } = await this.pool.query('UPDATE devices SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [id]);
    return (rowCount ?? 0) > 0;
  }

  /**
   * The device a credential names, when it is valid and not revoked. Nothing is written before
   * the secret is compared (in constant time): a wrong guess costs one read. `last_seen_at` is
   * kept to the minute, so a busy device is not a write per request either.
   */
  async authenticate(credential: string): Promise<Device | undefined> {
    const dot = credential.indexOf('.');
    const id = credential.slice(0, dot);
    if (dot < 0 || !UUID.test(id)) return undefined;
    const { rows } = await this.pool.query<{ client_id: string; name: string; secret_hash: string }>(
      'SELECT client_id::text, name, secret_hash FROM devices WHERE id = $1 AND revoked_at IS NULL',
      [id],
    );
    const row = rows[0];
    const given = Buffer.from(hash(credential.slice(dot + 1)), 'hex');
    // Compared even when there is no such device, against a hash no secret has, so both cost the same.
    const stored = Buffer.from(row?.secret_hash ?? NO_SECRET, 'hex');
    if (!timingSafeEqual(given, stored) || !row) return undefined;
    await this.pool.query("UPDATE devices SET last_seen_at = now() WHERE id = $1 AND (last_seen_at IS NULL OR last_seen_at < now() - interval '1 minute')", [id]);
    return { id, clientId: row.client_id, name: row.name };
  }

  /** The last change of this device's log the central applied (hello's mark). */
  async mark(id: string): Promise<{ op: string; seq: number } | null> {
    const { rows } = await this.pool.query<{ mark_op: string | null; mark_seq: string | null }>('SELECT mark_op, mark_seq FROM devices WHERE id = $1', [id]);
    const row = rows[0];
    return row?.mark_op && row.mark_seq ? { op: row.mark_op, seq: Number(row.mark_seq) } : null;
  }
}
