import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { solidPng } from '../support/map-fixtures.js';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCore, PinnedClock, testCore, type TestCore } from '../support/core.js';

/** A real tile server on 127.0.0.1 that counts what it is asked and answers as each test says. */
interface TileServer {
  url: string;
  hits: string[];
  answer: (path: string, headers: Record<string, string | string[] | undefined>) => { status: number; headers: Record<string, string>; body?: Buffer };
  stop(): Promise<void>;
}

async function tileServer(): Promise<TileServer> {
  const state: TileServer = {
    url: '',
    hits: [],
    answer: () => ({ status: 200, headers: { 'content-type': 'image/png', 'cache-control': 'max-age=60', etag: '"v1"' }, body: Buffer.from(solidPng([1, 2, 3])) }),
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    state.hits.push(`${req.url} ${req.headers['if-none-match'] ?? ''}`.trim());
    const { status, headers, body } = state.answer(req.url ?? '', req.headers);
    res.writeHead(status, headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/{z}/{x}/{y}.png`;
  return state;
}

let core: TestCore;
let server: TileServer;

beforeEach(async () => {
  core = testCore();
  server = await tileServer();
  core.settings.setMap({ ...core.settings.map(), tileUrl: server.url });
});
afterEach(async () => {
  core.close();
  await server.stop().catch(() => undefined);
});

describe('online tiles kept for offline use', () => {
  it('serves a tile from the cache while the server says it is fresh, then asks again with its validator', async () => {
    const first = await core.onlineTiles.tile(3, 4, 2);
    expect(first.source).toBe('network');
    expect(Buffer.from(first.bytes).equals(solidPng([1, 2, 3]))).toBe(true);
    expect((await core.onlineTiles.tile(3, 4, 2)).source).toBe('cache');
    expect(server.hits).toEqual(['/3/4/2.png']);

    core.clock.advance(61_000);
    server.answer = () => ({ status: 304, headers: { 'cache-control': 'max-age=600' } });
    const again = await core.onlineTiles.tile(3, 4, 2);
    expect(again.source).toBe('cache');
    expect(server.hits).toEqual(['/3/4/2.png', '/3/4/2.png "v1"']);
    // The 304 made it fresh for ten minutes.
    core.clock.advance(300_000);
    await core.onlineTiles.tile(3, 4, 2);
    expect(server.hits).toHaveLength(2);
  });

  it('serves what it kept when the tile server is gone, and says plainly when it has nothing', async () => {
    await core.onlineTiles.tile(5, 10, 12);
    await server.stop();
    core.clock.advance(3_600_000);
    const stale = await core.onlineTiles.tile(5, 10, 12);
    expect(stale.source).toBe('stale');
    expect(Buffer.from(stale.bytes).equals(solidPng([1, 2, 3]))).toBe(true);
    await expect(core.onlineTiles.tile(5, 11, 12)).rejects.toMatchObject({ code: 'TILE_SERVER_UNREACHABLE', message: expect.stringContaining('none is cached') });
  });

  it('keeps nothing the server marks no-store, nor an answer that is not an image', async () => {
    server.answer = () => ({ status: 200, headers: { 'content-type': 'image/png', 'cache-control': 'no-store' }, body: Buffer.from(solidPng([9, 9, 9])) });
    await core.onlineTiles.tile(1, 0, 0);
    expect(core.onlineTiles.status().tiles).toBe(0);
    server.answer = () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: Buffer.from('<h1>Access blocked</h1>') });
    await expect(core.onlineTiles.tile(1, 1, 0)).rejects.toMatchObject({ code: 'TILE_SERVER_UNREACHABLE', message: expect.stringContaining('text/html') });
    expect(core.onlineTiles.status().tiles).toBe(0);
  });

  it('stays under its limit by dropping the tiles used longest ago, and a lower limit applies at once', async () => {
    const big = Buffer.alloc(300 * 1024, 7);
    server.answer = () => ({ status: 200, headers: { 'content-type': 'image/png', 'cache-control': 'max-age=3600' }, body: big });
    core.console['settings.set']({ ...core.settings.map(), tileCacheMb: 1 });
    for (let x = 0; x < 6; x++) {
      await core.onlineTiles.tile(4, x, 0);
      core.clock.advance(1000);
    }
    const status = core.onlineTiles.status();
    expect(status.bytes).toBeLessThanOrEqual(1024 * 1024);
    expect(status.limitBytes).toBe(1024 * 1024);
    // The last one is kept, the first is gone.
    const before = server.hits.length;
    expect((await core.onlineTiles.tile(4, 5, 0)).source).toBe('cache');
    expect((await core.onlineTiles.tile(4, 0, 0)).source).toBe('network');
    expect(server.hits.length).toBe(before + 1);

    core.console['settings.set']({ ...core.settings.map(), tileCacheMb: 0 });
    expect(core.onlineTiles.status().bytes).toBe(0);
    await core.onlineTiles.tile(4, 1, 0);
    expect(core.onlineTiles.status().tiles).toBe(0);
  });

  it('gives the disk back when the limit is lowered: the files shrink, not only the count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-tile-cache-'));
    const onDisk = openCore({ file: join(dir, 'poi.sqlite'), clock: new PinnedClock() });
    try {
      onDisk.settings.setMap({ ...onDisk.settings.map(), tileUrl: server.url });
      server.answer = () => ({ status: 200, headers: { 'content-type': 'image/png', 'cache-control': 'max-age=3600' }, body: Buffer.alloc(300 * 1024, 7) });
      for (let x = 0; x < 40; x++) await onDisk.onlineTiles.tile(6, x, 0);
      const files = (): number => ['', '-wal'].map((s) => join(dir, `tile-cache.sqlite${s}`)).reduce((sum, f) => sum + (existsSync(f) ? statSync(f).size : 0), 0);
      expect(files()).toBeGreaterThan(10 * 1024 * 1024);
      onDisk.console['settings.set']({ ...onDisk.settings.map(), tileCacheMb: 1 });
      // Before: the cache said 1 MB but its file and WAL still held 12 MB.
      expect(onDisk.onlineTiles.status().bytes).toBeLessThanOrEqual(1024 * 1024);
      expect(files()).toBeLessThan(2 * 1024 * 1024);
    } finally {
      onDisk.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('follows no redirect, takes only raster images, and stops reading a tile past 8 MiB; none of these is cached', async () => {
    const elsewhere = await tileServer();
    try {
      const target = elsewhere.url.replace('{z}/{x}/{y}.png', 'svg');
      server.answer = (path): ReturnType<TileServer['answer']> =>
        path.startsWith('/5/1/')
          ? { status: 302, headers: { location: target } }
          : path.startsWith('/5/2/')
            ? { status: 200, headers: { 'content-type': 'image/svg+xml' }, body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') }
            : { status: 200, headers: { 'content-type': 'image/png', 'cache-control': 'max-age=3600' }, body: Buffer.alloc(9 * 1024 * 1024, 1) };
      // Before: the redirect to another local port was followed and its SVG served from the app's origin and cached.
      await expect(core.onlineTiles.tile(5, 1, 0)).rejects.toMatchObject({ code: 'TILE_SERVER_UNREACHABLE', message: expect.stringContaining('redirected elsewhere (HTTP 302)') });
      expect(elsewhere.hits).toEqual([]);
      await expect(core.onlineTiles.tile(5, 2, 0)).rejects.toMatchObject({ message: expect.stringContaining('image/svg+xml, not a PNG') });
      // Before: read whole and cached, whatever its size.
      await expect(core.onlineTiles.tile(5, 3, 0)).rejects.toMatchObject({ message: expect.stringContaining('over 8 MiB') });
      expect(core.onlineTiles.status().tiles).toBe(0);
    } finally {
      await elsewhere.stop();
    }
  });

  it('asks the server once for a tile many want at the same moment', async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => core.onlineTiles.tile(6, 30, 20)));
    expect(answers.every((a) => a.bytes.length > 0)).toBe(true);
    expect(server.hits).toEqual(['/6/30/20.png']);
  });

  it('empties on request', async () => {
    await core.onlineTiles.tile(2, 1, 1);
    expect(core.onlineTiles.status()).toMatchObject({ tiles: 1 });
    expect(core.onlineTiles.clear()).toMatchObject({ tiles: 0, bytes: 0 });
    expect((await core.onlineTiles.tile(2, 1, 1)).source).toBe('network');
  });

  it('refuses coordinates outside the world without asking the server', async () => {
    await expect(core.onlineTiles.tile(2, 4, 0)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(core.onlineTiles.tile(-1, 0, 0)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(server.hits).toEqual([]);
  });
});
