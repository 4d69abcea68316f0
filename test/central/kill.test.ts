import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoiReply } from '../../shared/wire.js';
import { Devices } from '../../main/central/devices.js';
import { migrateCentral } from '../../main/central/store/migrate.js';
import { centralPool } from '../../main/central/store/pool.js';
import { startCentralServer, type CentralApp } from '../../main/central/server.js';
import { syncOnce, SyncError, type SyncTarget } from '../../main/sync-client/client.js';
import { loadTarget, saveTarget } from '../../main/sync-client/credential.js';
import { openCore, type OpenCore } from '../support/core.js';
import { postgresMissing, startPostgres, type ThrowawayPostgres } from '../support/postgres.js';

const missing = postgresMissing();
if (missing && process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the sync fault tests must run here: ${missing}`);

const root = join(import.meta.dirname, '../..');

/** Syncs sent into the void: a `sync` process SIGKILLed at a random point, or the central stopped under a sync. */
describe.skipIf(missing !== undefined)('sync under faults', () => {
  let pg: ThrowawayPostgres;
  let pool: Pool;
  let server: CentralApp;
  let url: string;
  const dirs: string[] = [];
  const folder = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'poi-sync-kill-'));
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    pg = await startPostgres();
    pool = centralPool(pg.url);
    await migrateCentral(pool);
    ({ app: server, url } = await startCentralServer(pool));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await pool?.end();
    await pg?.remove();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  /** `sync --data DIR` in its own process, SIGKILLed after `ms` (or let finish when it is done first). */
  const killedSync = (dir: string, ms: number): Promise<'killed' | 'finished'> =>
    new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'sync', '--data', dir], { cwd: root, stdio: 'ignore' });
      const timer = setTimeout(() => child.kill('SIGKILL'), ms);
      child.once('exit', (_code, signal) => {
        clearTimeout(timer);
        resolve(signal === 'SIGKILL' ? 'killed' : 'finished');
      });
    });

  /** Every live POI of the client: on a desktop, and on the central. */
  const local = (dir: string, clientId: string) => {
    const core = openCore({ file: join(dir, 'poi.sqlite') });
    try {
      return core.db.prepare('SELECT uuid, name, lat, lng, phone FROM pois WHERE client_id = ? ORDER BY uuid').all(clientId);
    } finally {
      core.close();
    }
  };
  const central = async (clientId: string) =>
    (await pool.query('SELECT uuid::text, name, lat, lng, phone FROM pois WHERE client_id = $1 AND deleted_at IS NULL ORDER BY uuid::text', [clientId])).rows;

  it('converges with nothing lost and nothing twice after syncs SIGKILLed at random points, again and again', async () => {
    const a = folder();
    const b = folder();
    const coreA = openCore({ file: join(a, 'poi.sqlite') });
    const clientId = coreA.clients.create({ name: 'Killed' }).client_id;
    const devices = new Devices(pool);
    saveTarget(a, { url, credential: (await devices.add(clientId, 'A', 'Killed')).credential });
    saveTarget(b, { url, credential: (await devices.add(clientId, 'B')).credential });
    const batch = (from: number) => Array.from({ length: 1500 }, (_, i) => ({ name: `P${from + i}`, lat: 1 + (from + i) / 10_000, lng: 2, categories: [2] }));
    coreA.pois.addMany(clientId, batch(0));
    coreA.close();

    const outcomes: string[] = [];
    for (let round = 0; round < 6; round++) {
      // Between kills, more work on A: new POIs and edits of some already sent (or not).
      const core = openCore({ file: join(a, 'poi.sqlite') });
      core.pois.addMany(clientId, batch(1500 * (round + 1)));
      const some = (await core.console['pois.search']({ clientId, filter: { total: 5, q: `P${round}` } })) as PoiReply[];
      for (const p of some) await core.console['pois.update']({ clientId, fields: { poi: p.id, phone: `round ${round}` } });
      core.close();
      outcomes.push(await killedSync(a, 900 + Math.floor(Math.random() * 2500)));
      outcomes.push(await killedSync(b, 900 + Math.floor(Math.random() * 2500)));
    }
    console.log(`sync processes: ${outcomes.filter((o) => o === 'killed').length} SIGKILLed, ${outcomes.filter((o) => o === 'finished').length} finished first`);
    // Then each syncs to the end (A first, so B gets everything).
    for (const dir of [a, b, a]) {
      const core = openCore({ file: join(dir, 'poi.sqlite') });
      try {
        await syncOnce(core, loadTarget(dir)!);
      } finally {
        core.close();
      }
    }
    const onA = local(a, clientId);
    expect(onA).toHaveLength(1500 * 7);
    expect(new Set(onA.map((p) => (p as { uuid: string }).uuid)).size).toBe(onA.length);
    expect(local(b, clientId)).toEqual(onA);
    expect(await central(clientId)).toEqual(onA);
  }, 300_000);

  it('leaves the desktop working when the central stops in the middle of a sync; the next sync delivers what waited', async () => {
    const dir = folder();
    const core: OpenCore = openCore({ file: join(dir, 'poi.sqlite') });
    try {
      const clientId = core.clients.create({ name: 'Stopped' }).client_id;
      const target: SyncTarget = { url, credential: (await new Devices(pool).add(clientId, 'C', 'Stopped')).credential };
      core.pois.addMany(clientId, Array.from({ length: 5000 }, (_, i) => ({ name: `S${i}`, lat: 3, lng: 4 + i / 10_000, categories: [2] })));
      const sync = syncOnce(core, target).then(() => 'finished', (error: unknown) => error);
      await new Promise((r) => setTimeout(r, 300));
      await pg.stop('immediate');
      expect(await sync).toBeInstanceOf(SyncError);
      expect(String(await sync)).toContain('503');
      // Offline, the desktop works on.
      await core.console['pois.add']({ clientId, fields: { name: 'After the outage', lat: 3, lng: 5, categories: [2], geocode: false } });
      await pg.start();
      await expect.poll(() => syncOnce(core, target).then(() => true, () => false), { timeout: 30_000 }).toBe(true);
      const rows = await central(clientId);
      expect(rows).toHaveLength(5001);
      expect(rows).toEqual(core.db.prepare('SELECT uuid, name, lat, lng, phone FROM pois WHERE client_id = ? ORDER BY uuid').all(clientId));
    } finally {
      core.close();
    }
  }, 120_000);
});
