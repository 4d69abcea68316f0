import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { Pool } from 'pg';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Devices } from '../../main/central/devices.js';
import { MAX_FAILED_AUTHENTICATIONS } from '../../main/central/auth-failures.js';
import { migrateCentral } from '../../main/central/store/migrate.js';
import { centralPool } from '../../main/central/store/pool.js';
import { startCentralServer, type CentralApp } from '../../main/central/server.js';
import { syncOnce, SyncError } from '../../main/sync-client/client.js';
import { openCore } from '../support/core.js';
import { postgresMissing, startPostgres, type ThrowawayPostgres } from '../support/postgres.js';

const missing = postgresMissing();
if (missing && process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the central service's tests must run here: ${missing}`);

/** The first status line a raw request gets, with what was sent of its body: a real socket, so the test sees when the server answers. */
function rawRequest(port: number, head: string, bodyBytes: number): Promise<{ status: number; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(head);
      socket.write(Buffer.alloc(bodyBytes, 'x'));
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(data.toString())?.[1]), ms: performance.now() - started });
    });
    socket.once('error', reject);
    setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer in 5 s: the server waits for the whole body'));
    }, 5_000);
  });
}

describe.skipIf(missing !== undefined)('the central as a service you can run', () => {
  let pgc: ThrowawayPostgres;
  let pool: Pool;
  let server: CentralApp;
  let url: string;
  const lines: string[] = [];

  beforeAll(async () => {
    pgc = await startPostgres();
    pool = centralPool(pgc.url);
    await migrateCentral(pool);
    // The service's log, as `central serve` writes it (JSON lines), caught here.
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter((l) => l !== ''));
        done();
      },
    });
    ({ app: server, url } = await startCentralServer(pool, { logger: pino({ level: 'info' }, sink) }));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await pool?.end();
    await pgc?.remove();
  });

  const port = (): number => Number(new URL(url).port);

  it('checks the credential before reading a body: a 60 MB push without one is refused at once', async () => {
    const head = `POST /sync/push HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${60 * 1024 * 1024}\r\n\r\n`;
    // Only 1 KiB of the 60 MiB is sent: the answer must come without the rest.
    const answers = await Promise.all(Array.from({ length: 4 }, () => rawRequest(port(), head, 1024)));
    expect(answers.map((a) => a.status)).toEqual([401, 401, 401, 401]);
  });

  it('refuses a body over its limit with 413 before reading it, even from a valid device', async () => {
    const { credential } = await new Devices(pool).add('6f0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f', 'big pusher', 'Limits');
    const head = `POST /sync/push HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${credential}\r\nContent-Type: application/json\r\nContent-Length: ${70 * 1024 * 1024}\r\n\r\n`;
    expect((await rawRequest(port(), head, 1024)).status).toBe(413);
  });

  it('logs every failure it did not mean with its cause and the request id it answered, never a credential', async () => {
    const { credential } = await new Devices(pool).add('8f0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f', 'logged', 'Logged');
    await pool.query('ALTER TABLE conflicts RENAME TO conflicts_away');
    try {
      const reply = await fetch(new URL('/sync/conflicts', url), { headers: { authorization: `Bearer ${credential}` } });
      expect(reply.status).toBe(500);
      const { message } = (await reply.json()) as { message: string };
      const requestId = /request (\S+) in the service's log/.exec(message)?.[1];
      expect(requestId).toBeDefined();
      const logged = lines.map((l) => JSON.parse(l) as { level: number; reqId?: string; err?: { message: string } }).find((l) => l.level >= 50 && l.reqId === requestId);
      expect(logged?.err?.message).toContain('relation "conflicts" does not exist');
    } finally {
      await pool.query('ALTER TABLE conflicts_away RENAME TO conflicts');
    }
    expect(lines.join('\n')).not.toContain(credential.split('.')[1]!);
    expect(lines.some((l) => l.includes('"url":"/sync/conflicts"'))).toBe(true);
  });

  it('gives map readers live POIs with their categories by name, through the one view the documented role may read', async () => {
    const clientId = '9f0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f';
    await new Devices(pool).add(clientId, 'gis', 'GIS');
    await pool.query("INSERT INTO categories (uuid, client_id, description, name_key, created_at, updated_at) VALUES ('0a0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f', $1, 'Fountains', 'fountains', now(), now())", [clientId]);
    await pool.query(
      `INSERT INTO pois (uuid, client_id, name, lat, lng, categories, registered_at, updated_at, deleted_at) VALUES
       ('1a0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f', $1, 'Live', 40, -3, ARRAY['0a0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f', 'system:1'], now(), now(), NULL),
       ('2a0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f', $1, 'Gone', 40, -3, ARRAY['system:2'], now(), now(), now())`,
      [clientId],
    );
    // The role exactly as docs/central.md tells an administrator to make it.
    const doc = readFileSync(join(import.meta.dirname, '../../docs/central.md'), 'utf8');
    const sql = /```sql map-reader\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(sql).toBeDefined();
    await pool.query(sql!.replaceAll('poi_central', new URL(pgc.url).pathname.slice(1)).replace("PASSWORD 'choose-one'", "PASSWORD 'reader-secret'"));
    const reader = new pg.Client({ connectionString: pgc.url.replace('postgres@', 'map_reader@') });
    await reader.connect();
    try {
      const { rows } = await reader.query<{ name: string; categories: string[]; lat: number }>('SELECT name, categories, lat FROM pois_public WHERE client_id = $1', [clientId]);
      expect(rows).toEqual([{ name: 'Live', categories: ['Fountains', 'Restaurant'], lat: 40 }]);
      for (const table of ['members', 'devices', 'pois', 'applied_ops']) await expect(reader.query(`SELECT * FROM ${table} LIMIT 1`)).rejects.toThrow(/permission denied/);
    } finally {
      await reader.end();
    }
  });
  // Last: it leaves this address limited for a minute.
  it('writes nothing for a wrong secret, and makes an address that keeps guessing wait', async () => {
    const devices = new Devices(pool);
    const { device_id: id } = await devices.add('7f0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f', 'guessed', 'Guesses');
    const tries = async (n: number) => {
      const statuses: number[] = [];
      for (let i = 0; i < n; i++) statuses.push((await fetch(new URL('/sync/hello', url), { headers: { authorization: `Bearer ${id}.wrong-secret-${i}` } })).status);
      return statuses;
    };
    expect(new Set(await tries(MAX_FAILED_AUTHENTICATIONS))).toEqual(new Set([401]));
    const { rows } = await pool.query<{ last_seen_at: Date | null }>('SELECT last_seen_at FROM devices WHERE id = $1', [id]);
    expect(rows[0]!.last_seen_at).toBeNull();
    const limited = await fetch(new URL('/sync/hello', url), { headers: { authorization: `Bearer ${id}.one-more` } });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});

describe('a desktop and its credential', () => {
  const lan = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
  let listener: Server;
  let seen = 0;
  beforeAll(async () => {
    listener = createServer((_req, res) => {
      seen++;
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())));

  it.skipIf(lan === undefined)('sends no credential over plain http to another computer, unless told to', async () => {
    const core = openCore({ file: ':memory:' });
    try {
      const at = `http://${lan}:${(listener.address() as { port: number }).port}`;
      const sync = syncOnce(core, { url: at, credential: '00000000-0000-4000-8000-000000000000.secret' });
      await expect(sync).rejects.toThrow(SyncError);
      await expect(sync).rejects.toThrow(/plain http to another computer.*--insecure-http/);
      expect(seen).toBe(0);
      // Told to: it goes (and this server refuses it).
      await expect(syncOnce(core, { url: at, credential: '00000000-0000-4000-8000-000000000000.secret', insecureHttp: true })).rejects.toThrow(/500/);
      expect(seen).toBe(1);
    } finally {
      core.close();
    }
  });
});
