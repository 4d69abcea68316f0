import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore, type TestCore } from '../support/core.js';

/**
 * A map upload onto a full disk: the maps folder is a real 256 KiB tmpfs, mounted by the test (root
 * only), so the kernel itself answers ENOSPC.
 */
const TOKEN = 'test-console-token-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'map-full-disk-'));
const maps = join(dir, 'maps');
mkdirSync(maps);
const mounted = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k,mode=0700', 'tmpfs', maps], { encoding: 'utf8' });
const why = mounted.status === 0 ? undefined : `mounting a small tmpfs needs root (${(mounted.stderr || mounted.error?.message || '').trim()})`;
if (why) console.warn(`skipped: a full disk is made with a tmpfs: ${why}`);

describe.skipIf(why !== undefined)('a map upload onto a full disk', () => {
  let core: TestCore;
  let server: ApiServer;
  let base = '';
  beforeAll(async () => {
    core = testCore({ mapsDir: maps });
    const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
    server = new ApiServer(core, { port: 0, api: false, console: consoleOptions(core, listener, () => undefined, () => TOKEN) });
    base = `http://127.0.0.1:${(await server.start()).port}`;
  });
  afterAll(async () => {
    await server?.stop();
    core?.close();
    spawnSync('umount', [maps]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 STORAGE_FULL, saying what to do, and keeps nothing of it', async () => {
    const r = await fetch(`${base}/console/maps?filename=big.mbtiles`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(1024 * 1024, 7),
    });
    // Before: 400 "the upload was cut off before its end", as if the client had hung up.
    expect(r.status).toBe(503);
    expect(await r.json()).toMatchObject({ ok: false, error: { description: 'EXCEPTION_STORAGE_FULL', message: expect.stringContaining('Free some space') } });
    expect(readdirSync(maps).filter((f) => f.includes('.upload-'))).toEqual([]);
  });
});
