import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConflictView } from '../../shared/sync-view.js';
import type { PoiReply } from '../../shared/wire.js';
import { centralPool } from '../../main/central/store/pool.js';
import { freePort } from '../support/free-port.js';
import { openCore } from '../support/core.js';
import { postgresMissing, startPostgres, type ThrowawayPostgres } from '../support/postgres.js';

const missing = postgresMissing();
if (missing && process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the sync CLI tests must run here: ${missing}`);

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);
const cli = async (...args: string[]): Promise<unknown> => JSON.parse((await run(process.execPath, ['--import', 'tsx', 'main/cli.ts', ...args], { cwd: root })).stdout);

/** The central and two desktops as their users run them: `central serve` in its own process, and the CLI on two data folders. */
describe.skipIf(missing !== undefined)('the central and sync from the command line', () => {
  let pg: ThrowawayPostgres;
  let server: ChildProcess;
  let url: string;
  const dirs: string[] = [];
  const folder = (): string => {
    const d = mkdtempSync(join(tmpdir(), 'poi-sync-cli-'));
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    pg = await startPostgres();
    await cli('central', 'init', '--postgres', pg.url);
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'central', 'serve', '--postgres', pg.url, '--port', String(port)], { cwd: root });
    await new Promise<void>((resolve, reject) => {
      server.stdout!.on('data', (d: Buffer) => d.toString().includes('Sync service on') && resolve());
      server.once('exit', (code) => reject(new Error(`central serve exited ${code}`)));
    });
  }, 60_000);
  afterAll(async () => {
    server?.kill('SIGTERM');
    await pg?.remove();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  it('issues device credentials, syncs two data folders, and resolves a conflict from the CLI', async () => {
    const a = folder();
    const b = folder();
    const { client_id: clientId } = (await cli('client', 'add', '--name', 'Survey', '--data', a)) as { client_id: string };
    const devA = (await cli('central', 'device', 'add', '--name', 'laptop A', '--client', clientId, '--client-name', 'Survey', '--postgres', pg.url)) as { credential: string; device_id: string };
    const devB = (await cli('central', 'device', 'add', '--name', 'laptop B', '--client', clientId, '--postgres', pg.url)) as { credential: string; device_id: string };
    expect(devA.credential).toMatch(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{43}$/);
    // The central keeps the secret's hash only.
    const pool = centralPool(pg.url);
    const stored = JSON.stringify((await pool.query('SELECT * FROM devices')).rows);
    await pool.end();
    expect(stored).toContain(devA.device_id);
    expect(stored).not.toContain(devA.credential.split('.')[1]);

    const coreA = openCore({ file: join(a, 'poi.sqlite') });
    const poi = (await coreA.console['pois.add']({ clientId, fields: { name: 'Well', lat: 12.1, lng: -1.5, categories: [2], geocode: false } })) as PoiReply;
    coreA.close();
    expect(await cli('sync', '--url', url, '--credential', devA.credential, '--data', a)).toMatchObject({ clientId, pushed: 1 });
    expect(statSync(join(a, 'sync-target.json')).mode & 0o777).toBe(0o600);
    expect(await cli('sync', '--url', url, '--credential', devB.credential, '--data', b)).toMatchObject({ clientId, pulled: 1 });

    // The same field, offline on both: one conflict.
    const edit = async (dir: string, name: string) => {
      const core = openCore({ file: join(dir, 'poi.sqlite') });
      const id = ((await core.console['pois.search']({ clientId, filter: { total: 5 } })) as PoiReply[])[0]!.id;
      await core.console['pois.update']({ clientId, fields: { poi: id, name } });
      core.close();
    };
    await edit(a, 'Well (dry)');
    await edit(b, 'Well (working)');
    expect(await cli('sync', 'status', '--data', a)).toMatchObject({ waiting: 1 });
    await cli('sync', '--data', a);
    expect(await cli('sync', '--data', b)).toMatchObject({ conflicts: 1 });
    const conflicts = (await cli('sync', 'conflicts', '--data', a)) as ConflictView[];
    expect(conflicts).toEqual([expect.objectContaining({ uuid: poi.uuid, field: 'name', mine: 'Well (working)', theirs: 'Well (dry)' })]);
    // Seen from A, its own side comes first and is called so; B's is named by its device.
    expect(conflicts[0]!.sides.map((s) => [s.who, s.value])).toEqual([['this desktop', 'Well (dry)'], ['device laptop B', 'Well (working)']]);

    // Resolved on A, keeping its own value ("mine" is A's side, whoever pushed last), and B follows.
    await cli('sync', 'resolve', String(conflicts[0]!.id), '--mine', '--data', a);
    await cli('sync', '--data', b);
    expect(await cli('sync', 'conflicts', '--data', b)).toEqual([]);
    for (const dir of [a, b]) {
      const core = openCore({ file: join(dir, 'poi.sqlite') });
      expect(((await core.console['pois.search']({ clientId, filter: { total: 5 } })) as PoiReply[]).map((p) => p.name)).toEqual(['Well (dry)']);
      core.close();
    }
    // A revoked device is refused, saying so.
    await cli('central', 'device', 'revoke', devB.device_id, '--postgres', pg.url);
    await expect(run(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'sync', '--data', b], { cwd: root })).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('revoked') });
  }, 120_000);
});
