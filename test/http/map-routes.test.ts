import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { writeMbtiles, writePmtiles } from '../../main/build/map-package-writer.js';
import { vectorLayers } from '../../main/core/maps/tile-bytes.js';
import { ApiServer } from '../../main/http/server.js';
import type { MapImportJob } from '../../shared/jobs.js';
import type { MapPackage } from '../../shared/maps.js';
import { testCore } from '../support/core.js';
import { rasterTiles, solidPng, streetsAround, tileAt, tilesAround, vectorTiles } from '../support/map-fixtures.js';

const TOKEN = 'test-console-token-0123456789';
const LNG = 2.3522;
const LAT = 48.8566;
const dir = mkdtempSync(join(tmpdir(), 'map-routes-'));
const core = testCore({ mapsDir: join(dir, 'maps') });
const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
const server = new ApiServer(core, { port: 0, api: false, console: consoleOptions(core, listener, () => undefined, () => TOKEN) });
let base = '';
const bearer = { authorization: `Bearer ${TOKEN}` };

beforeAll(async () => {
  base = `http://127.0.0.1:${(await server.start()).port}`;
});
afterAll(async () => {
  await server.stop();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const upload = (bytes: Uint8Array, query = '', headers: Record<string, string> = bearer): Promise<Response> =>
  fetch(`${base}/console/maps${query}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...headers }, body: Buffer.from(bytes) });

/** An upload's answer, the import's job, followed to its end: the package it imported. */
async function imported(r: Response): Promise<MapPackage> {
  expect(r.status).toBe(200);
  const { value: job } = (await r.json()) as { value: MapImportJob };
  expect(job).toMatchObject({ kind: 'map-import', state: 'running' });
  const ended = await core.jobs.whenDone(job.id);
  if (ended.kind !== 'map-import' || ended.report === null) throw new Error(`the import ended ${ended.state}: ${ended.error}`);
  return ended.report;
}

const tileKey = async (): Promise<{ key: string; path: string }> => {
  const r = await fetch(`${base}/console/tile-key`, { method: 'POST', headers: bearer });
  return ((await r.json()) as { value: { key: string; path: string } }).value;
};

function fixture(name: string, write: (file: string) => void): Uint8Array {
  const file = join(dir, name);
  write(file);
  return readFileSync(file);
}

describe('browser mode: map packages over HTTP', () => {
  it('imports an uploaded package and serves its tiles under a key derived from the token', async () => {
    const bytes = fixture('paris.pmtiles', (f) =>
      writePmtiles(f, { format: 'pbf', name: 'Paris', tiles: vectorTiles(streetsAround(LNG, LAT), tilesAround(LNG, LAT, 14, 14)) }),
    );
    const pkg = await imported(await upload(bytes, '?name=Paris%20streets'));
    expect(pkg).toMatchObject({ name: 'Paris streets', kind: 'vector', container: 'pmtiles' });
    expect(readdirSync(join(dir, 'maps')).filter((f) => f.endsWith('.part'))).toEqual([]);

    const { key, path } = await tileKey();
    expect(key).not.toContain(TOKEN);
    const { x, y } = tileAt(LNG, LAT, 14);
    const tile = await fetch(`${base}${path}/${pkg.id}/14/${x}/${y}?k=${key}`);
    expect(tile.status).toBe(200);
    expect(tile.headers.get('content-type')).toBe('application/vnd.mapbox-vector-tile');
    expect(vectorLayers(new Uint8Array(await tile.arrayBuffer())).sort()).toEqual(['road', 'road_label', 'water']);
    // Where the package has no tile: an empty answer the vector renderer reads as an empty tile.
    const none = await fetch(`${base}${path}/${pkg.id}/14/${x + 40}/${y}?k=${key}`);
    expect(none.status).toBe(204);
  });

  it('refuses tiles without the key, and with the token itself in its place', async () => {
    const pkg = core.maps.list()[0]!;
    const { x, y } = tileAt(LNG, LAT, 14);
    for (const k of ['', 'nope', TOKEN]) {
      const r = await fetch(`${base}/console/tiles/${pkg.id}/14/${x}/${y}?k=${encodeURIComponent(k)}`);
      expect(r.status).toBe(401);
    }
    const withHeaderOnly = await fetch(`${base}/console/tiles/${pkg.id}/14/${x}/${y}`, { headers: bearer });
    expect(withHeaderOnly.status).toBe(401);
    expect((await fetch(`${base}/console/tile-key`, { method: 'POST' })).status).toBe(401);
  });

  it('refuses an upload without the token and keeps nothing of it', async () => {
    const before = core.maps.list();
    const bytes = fixture('red.mbtiles', (f) => writeMbtiles(f, { format: 'png', name: 'red', tiles: rasterTiles(tilesAround(LNG, LAT, 8, 8), [255, 0, 0]) }));
    const r = await upload(bytes, '', {});
    expect(r.status).toBe(401);
    expect(core.maps.list()).toEqual(before);
    expect(readdirSync(join(dir, 'maps')).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('refuses a broken file by its job, naming why, and keeps nothing', async () => {
    const before = readdirSync(join(dir, 'maps')).sort();
    const r = await upload(Buffer.from('PK\u0003\u0004 a zip file, not a map'));
    expect(r.status).toBe(200);
    const { value: job } = (await r.json()) as { value: MapImportJob };
    const ended = await core.jobs.whenDone(job.id);
    expect(ended).toMatchObject({ state: 'failed', report: null, error: expect.stringMatching(/the uploaded file cannot be imported: it is neither an MBTiles file nor a PMTiles archive/) });
    expect(readdirSync(join(dir, 'maps')).sort()).toEqual(before);
  });

  it('serves raster tiles as images, and removes an upload cut off half-way', async () => {
    const bytes = fixture('green.mbtiles', (f) => writeMbtiles(f, { format: 'png', name: 'green', tiles: rasterTiles(tilesAround(LNG, LAT, 9, 9), [0, 255, 0]) }));
    const pkg = await imported(await upload(bytes));
    const { key, path } = await tileKey();
    const { x, y } = tileAt(LNG, LAT, 9);
    const tile = await fetch(`${base}${path}/${pkg.id}/9/${x}/${y}?k=${key}`);
    expect(tile.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await tile.arrayBuffer()).equals(Buffer.from(solidPng([0, 255, 0])))).toBe(true);

    const before = core.maps.list();
    // Says it sends the whole file, sends half, and hangs up.
    await new Promise<void>((resolve) => {
      const { port } = new URL(base);
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/console/maps', headers: { ...bearer, 'content-type': 'application/octet-stream', 'content-length': bytes.length } });
      req.on('error', () => resolve());
      req.write(bytes.subarray(0, bytes.length / 2), () => setTimeout(() => { req.destroy(); resolve(); }, 200));
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(core.maps.list()).toEqual(before);
    expect(readdirSync(join(dir, 'maps')).filter((f) => f.endsWith('.part'))).toEqual([]);
  });
});
