import { createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Pool } from 'pg';

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
}

// 32 random bytes: a secret no one guesses, so a fast hash is enough (as for API tokens); a slow one would cost every request.
const hash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

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

  /** The device a credential names, when it is valid and not revoked. */
  async authenticate(credential: string): Promise<Device | undefined> {
    const dot = credential.indexOf('.');
    const id = credential.slice(0, dot);
    if (dot < 0 || !/^[0-9a-f-]{36}$/.test(id)) return undefined;
    const { rows } = await this.pool.query<{ client_id: string; secret_hash: string }>(
      'UPDATE devices SET last_seen_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING client_id, secret_hash',
      [id],
    );
    const row = rows[0];
    if (!row) return undefined;
    const given = Buffer.from(hash(credential.slice(dot + 1)), 'hex');
    return timingSafeEqual(given, Buffer.from(row.secret_hash, 'hex')) ? { id, clientId: row.client_id } : undefined;
  }
}
