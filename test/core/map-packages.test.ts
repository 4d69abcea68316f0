import BetterSqlite3 from 'better-sqlite3';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeMbtiles, writePmtiles } from '../../main/build/map-package-writer.js';
import { buildSampleMap } from '../../main/build/sample-map.js';
import { vectorLayers } from '../../main/core/maps/tile-bytes.js';
import { MAX_INFLATED_TILE_BYTES, MAX_TILE_BYTES } from '../../shared/maps.js';
import { rasterTiles, solidPng, streetsAround, tileAt, tilesAround, vectorTiles } from '../support/map-fixtures.js';
import { openCore, testCore, type TestCore } from '../support/core.js';

// Lisbon, Praça do Comércio.
const LNG = -9.1366;
const LAT = 38.7075;

let dir: string;
let core: TestCore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'maps-'));
  core = testCore({ mapsDir: join(dir, 'maps') });
});
afterEach(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const inMaps = (): string[] => readdirSync(join(dir, 'maps')).sort();

describe('map packages: import', () => {
  it('copies a large package off the event loop: other work gets its turns while it is copied', async () => {
    const file = join(dir, 'large.mbtiles');
    const coords = tilesAround(LNG, LAT, 12, 12, 4);
    writeMbtiles(file, { format: 'png', name: 'Large', tiles: rasterTiles(coords, [0, 0, 200]) });
    // Grown to 256 MiB with a table the import never reads: the copy is what is measured.
    const db = new BetterSqlite3(file);
    db.exec('CREATE TABLE filler (bytes BLOB)');
    const insert = db.prepare('INSERT INTO filler VALUES (randomblob(?))');
    db.transaction(() => {
      for (let i = 0; i < 256; i++) insert.run(1024 * 1024);
    })();
    db.close();
    let turns = 0;
    const probe = setInterval(() => turns++, 0);
    const pkg = await core.maps.importFile(file);
    clearInterval(probe);
    expect(pkg.bytes).toBeGreaterThan(256 * 1024 ** 2);
    // Before: copyFileSync and fsyncSync, during which no timer could run.
    expect(turns).toBeGreaterThan(3);
  }, 60_000);

  it('imports a raster MBTiles and reads its tiles with the TMS row flipped', async () => {
    const file = join(dir, 'red.mbtiles');
    const coords = tilesAround(LNG, LAT, 10, 12);
    writeMbtiles(file, {
      format: 'png',
      name: 'Red Lisbon',
      attribution: '&copy; <a href="https://example.org/credits">Example</a> contributors',
      tiles: rasterTiles(coords, [200, 0, 0]),
    });
    const pkg = await core.maps.importFile(file);
    expect(pkg).toMatchObject({ name: 'Red Lisbon', container: 'mbtiles', kind: 'raster', format: 'png', minZoom: 10, maxZoom: 12 });
    expect(pkg.attribution).toBe('© Example contributors');
    expect(pkg.attributionUrl).toBe('https://example.org/credits');
    // Bounds computed from the tiles at the highest zoom (the file gives none) hold the point.
    expect(pkg.bounds[0]).toBeLessThan(LNG);
    expect(pkg.bounds[2]).toBeGreaterThan(LNG);
    expect(pkg.bounds[1]).toBeLessThan(LAT);
    expect(pkg.bounds[3]).toBeGreaterThan(LAT);

    const { x, y } = tileAt(LNG, LAT, 12);
    const tile = await core.maps.tile(pkg.id, 12, x, y);
    expect(tile?.contentType).toBe('image/png');
    expect(Buffer.from(tile!.bytes).equals(Buffer.from(solidPng([200, 0, 0])))).toBe(true);
    // The row as stored (TMS, from the south) is not where the map asks.
    expect(await core.maps.tile(pkg.id, 12, x, 2 ** 12 - 1 - y)).toBeNull();
    expect(await core.maps.tile(pkg.id, 9, 0, 0)).toBeNull();
    expect(await core.maps.tile(pkg.id, 12, -1, 0)).toBeNull();
    expect(core.maps.list()).toEqual([pkg]);
    // The source stays where it was: the package is a copy.
    expect(readdirSync(dir)).toContain('red.mbtiles');
  });

  it('imports a vector MBTiles with gzipped tiles and no layer list, and serves the tiles inflated', async () => {
    const file = join(dir, 'streets.mbtiles');
    const tiles = vectorTiles(streetsAround(LNG, LAT), tilesAround(LNG, LAT, 13, 14));
    writeMbtiles(file, { format: 'pbf', name: '', tiles: tiles.map((t) => ({ ...t, data: gzipSync(t.data) })) });
    const pkg = await core.maps.importFile(file, { name: '  Lisbon streets ' });
    expect(pkg).toMatchObject({ name: 'Lisbon streets', kind: 'vector', format: 'pbf', schema: 'mapbox-streets' });
    expect(pkg.layers.sort()).toEqual(['road', 'road_label', 'water']);
    const { x, y } = tileAt(LNG, LAT, 14);
    const tile = await core.maps.tile(pkg.id, 14, x, y);
    expect(tile?.contentType).toBe('application/vnd.mapbox-vector-tile');
    expect(vectorLayers(tile!.bytes).sort()).toEqual(['road', 'road_label', 'water']);
  });

  it('refuses to serve one tile that inflates past the limit, and serves the others', async () => {
    const file = join(dir, 'one-bomb.mbtiles');
    const tiles = vectorTiles(streetsAround(LNG, LAT), tilesAround(LNG, LAT, 14, 14));
    writeMbtiles(file, { format: 'pbf', name: 'one bomb', tiles: [...tiles.map((t) => ({ ...t, data: gzipSync(t.data) })), { z: 3, x: 3, y: 3, data: gzipSync(Buffer.alloc(MAX_INFLATED_TILE_BYTES + 1)) }] });
    const pkg = await core.maps.importFile(file);
    // Before: the tile came back as 33 MiB of inflated bytes (three at once took the app down).
    await expect(core.maps.tile(pkg.id, 3, 3, 3)).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(/tile 3\/3\/3 .* inflates to more than 32 MiB/) });
    const { x, y } = tileAt(LNG, LAT, 14);
    expect(vectorLayers((await core.maps.tile(pkg.id, 14, x, y))!.bytes).sort()).toEqual(['road', 'road_label', 'water']);
  });

  it('imports vector and raster PMTiles archives', async () => {
    const vector = join(dir, 'streets.pmtiles');
    writePmtiles(vector, {
      format: 'pbf',
      name: 'PM streets',
      vectorLayers: ['transportation', 'water'],
      tiles: vectorTiles({ transportation: streetsAround(LNG, LAT).road!, water: streetsAround(LNG, LAT).water! }, tilesAround(LNG, LAT, 12, 14)),
      bounds: [LNG - 0.1, LAT - 0.1, LNG + 0.1, LAT + 0.1],
    });
    const v = await core.maps.importFile(vector);
    expect(v).toMatchObject({ name: 'PM streets', container: 'pmtiles', kind: 'vector', schema: 'openmaptiles', minZoom: 12, maxZoom: 14 });
    expect(v.bounds[0]).toBeCloseTo(LNG - 0.1, 5);
    const { x, y } = tileAt(LNG, LAT, 14);
    expect(vectorLayers((await core.maps.tile(v.id, 14, x, y))!.bytes).sort()).toEqual(['transportation', 'water']);

    core.clock.advance(1000);
    const raster = join(dir, 'blue.pmtiles');
    writePmtiles(raster, { format: 'png', name: '', tiles: rasterTiles(tilesAround(LNG, LAT, 11, 11), [0, 0, 200]) });
    const r = await core.maps.importFile(raster);
    expect(r).toMatchObject({ name: 'blue', kind: 'raster', format: 'png' });
    const at11 = tileAt(LNG, LAT, 11);
    expect(Buffer.from((await core.maps.tile(r.id, 11, at11.x, at11.y))!.bytes).equals(Buffer.from(solidPng([0, 0, 200])))).toBe(true);
    expect(await core.maps.tile(r.id, 11, at11.x + 5, at11.y)).toBeNull();
    expect(core.maps.list().map((p) => p.id)).toEqual([v.id, r.id]);
  });
});

describe('map packages: refusals change nothing', () => {
  const good = (file: string): void =>
    writeMbtiles(file, { format: 'png', name: 'good', tiles: rasterTiles(tilesAround(LNG, LAT, 5, 5), [0, 200, 0]) });

  const refusals: Array<[string, (file: string) => void, RegExp]> = [
    ['a text file', (f) => writeFileSync(f, 'hello, I am not a map'), /neither an MBTiles file nor a PMTiles archive/],
    ['an empty file', (f) => writeFileSync(f, ''), /neither an MBTiles file nor a PMTiles archive/],
    [
      'a SQLite database without tiles',
      (f) => {
        good(f);
        const open = new BetterSqlite3(f);
        open.exec('DROP TABLE tiles');
        open.close();
      },
      /not an MBTiles file/,
    ],
    [
      'an MBTiles cut in half',
      (f) => {
        good(f);
        const whole = readFileSync(f);
        writeFileSync(f, whole.subarray(0, Math.floor(whole.length / 2)));
      },
      /cannot be imported/,
    ],
    [
      'an MBTiles whose tiles are not images or vector tiles',
      (f) => writeMbtiles(f, { format: 'png', name: 'x', tiles: [{ z: 1, x: 0, y: 0, data: Buffer.from('<html>not a tile</html>') }] }),
      /not PNG, JPEG, WebP or vector tiles/,
    ],
    [
      // Before: inflated whole (gunzip without a limit); a 2 MB file's tile could inflate to 1 GiB.
      'an MBTiles whose vector tile inflates past the limit',
      (f) => writeMbtiles(f, { format: 'pbf', name: 'bomb', tiles: [{ z: 1, x: 0, y: 0, data: gzipSync(Buffer.alloc(MAX_INFLATED_TILE_BYTES + 1)) }] }),
      /inflates to more than 32 MiB/,
    ],
    [
      'an MBTiles whose tile is over the limit as stored',
      (f) => writeMbtiles(f, { format: 'png', name: 'huge', tiles: [{ z: 1, x: 0, y: 0, data: Buffer.concat([solidPng([1, 2, 3]), Buffer.alloc(MAX_TILE_BYTES)]) }] }),
      /over the 8 MiB a tile may hold/,
    ],
    [
      'a PMTiles archive of version 2',
      (f) => {
        writePmtiles(f, { format: 'png', name: 'x', tiles: rasterTiles([{ z: 0, x: 0, y: 0 }], [1, 2, 3]) });
        const bytes = readFileSync(f);
        bytes[7] = 2;
        writeFileSync(f, bytes);
      },
      /version 2/,
    ],
    [
      'a PMTiles archive cut short',
      (f) => {
        writePmtiles(f, { format: 'png', name: 'x', tiles: rasterTiles([{ z: 0, x: 0, y: 0 }], [1, 2, 3]) });
        writeFileSync(f, readFileSync(f).subarray(0, 60));
      },
      /cannot be imported/,
    ],
    [
      // Before: accepted; the missing tiles answered 204 and the map was blank where it said the package was shown.
      'a PMTiles archive holding only its first 60 %',
      (f) => {
        writePmtiles(f, { format: 'png', name: 'x', tiles: rasterTiles(tilesAround(LNG, LAT, 10, 12), [4, 5, 6]) });
        const whole = readFileSync(f);
        writeFileSync(f, whole.subarray(0, Math.floor(whole.length * 0.6)));
      },
      /cut short or damaged: its tile data would end at byte \d+, but the file has \d+ bytes/,
    ],
  ];

  for (const [what, make, message] of refusals) {
    it(`refuses ${what}, with a clear message, and keeps nothing`, async () => {
      good(join(dir, 'first.mbtiles'));
      const first = await core.maps.importFile(join(dir, 'first.mbtiles'));
      const before = inMaps();
      const file = join(dir, 'broken.mbtiles');
      make(file);
      await expect(core.maps.importFile(file)).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', parameter: 'file', message });
      expect(inMaps()).toEqual(before);
      expect(core.maps.list()).toEqual([first]);
    });
  }

  it('removes a moved upload it refuses', async () => {
    const upload = core.maps.uploadPath();
    writeFileSync(upload, 'not a map');
    await expect(core.maps.importFile(upload, { move: true })).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
    expect(inMaps()).toEqual([]);
  });
});

describe('map files are private', () => {
  it('keeps an imported package 0600, copied from a file the CLI names or moved from an upload', async () => {
    const file = join(dir, 'shared.pmtiles');
    writePmtiles(file, { format: 'png', name: 'shared', tiles: rasterTiles([{ z: 0, x: 0, y: 0 }], [9, 9, 9]) });
    chmodSync(file, 0o644);
    const pkg = await core.maps.importFile(file);
    // Before: 0644, the copy taking its source's mode.
    expect(statSync(join(dir, 'maps', `${pkg.id}.pmtiles`)).mode & 0o777).toBe(0o600);
  });

  it('makes the tile cache 0600, and tightens an older one made 0644', () => {
    const data = join(dir, 'data');
    mkdirSync(data);
    const cache = join(data, 'tile-cache.sqlite');
    const opened = openCore({ file: join(data, 'poi.sqlite') });
    opened.close();
    expect(statSync(cache).mode & 0o777).toBe(0o600);
    chmodSync(cache, 0o644);
    openCore({ file: join(data, 'poi.sqlite') }).close();
    expect(statSync(cache).mode & 0o777).toBe(0o600);
  });
});

describe('map packages: removal and leftovers', () => {
  it('removes a package and its file; an unknown id is NOT_FOUND', async () => {
    const file = join(dir, 'a.pmtiles');
    writePmtiles(file, { format: 'png', name: 'a', tiles: rasterTiles([{ z: 0, x: 0, y: 0 }], [9, 9, 9]) });
    const pkg = await core.maps.importFile(file);
    expect(await core.maps.tile(pkg.id, 0, 0, 0)).not.toBeNull();
    expect(core.console['maps.remove']({ id: pkg.id })).toMatchObject({ code: 200 });
    expect(inMaps()).toEqual([]);
    expect(await core.maps.tile(pkg.id, 0, 0, 0)).toBeNull();
    expect(() => core.console['maps.remove']({ id: pkg.id })).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('keeps its list while the folder is unchanged, and sees a package another process removed or imported', async () => {
    const file = join(dir, 'a.pmtiles');
    writePmtiles(file, { format: 'png', name: 'a', tiles: rasterTiles([{ z: 0, x: 0, y: 0 }], [9, 9, 9]) });
    const pkg = await core.maps.importFile(file);
    const maps = join(dir, 'maps');
    // Settled: the folder last changed over a second ago, so its list is kept.
    const past = (Date.now() - 5_000) / 1000;
    utimesSync(maps, past, past);
    expect(core.maps.list().map((p) => p.id)).toEqual([pkg.id]);
    const description = join(maps, `${pkg.id}.json`);
    const kept = readFileSync(description, 'utf8');
    // Another process (the CLI) removes it: the folder's time moves, the list follows.
    rmSync(description);
    expect(core.maps.list()).toEqual([]);
    // And puts it back.
    writeFileSync(description, kept);
    expect(core.maps.list().map((p) => p.id)).toEqual([pkg.id]);
  });

  it('sweeps what an interrupted import left an hour ago, and leaves a fresh one to the import still running', async () => {
    const file = join(dir, 'a.pmtiles');
    writePmtiles(file, { format: 'png', name: 'a', tiles: rasterTiles([{ z: 0, x: 0, y: 0 }], [9, 9, 9]) });
    const kept = await core.maps.importFile(file);
    const maps = join(dir, 'maps');
    const old = join(maps, '01890000-0000-7000-8000-000000000000.mbtiles');
    const fresh = join(maps, '.upload-01890000-0000-7000-8000-000000000001.part');
    // An upload of a WAL-mode package opened while it arrived leaves its companions too.
    const oldUpload = join(maps, '.upload-01890000-0000-7000-8000-000000000002.part');
    const companions = [`${oldUpload}-wal`, `${oldUpload}-shm`, `${old}-wal`];
    writeFileSync(old, 'half a copy');
    writeFileSync(fresh, 'an upload arriving');
    const twoHoursAgo = (core.clock.now() - 2 * 3600_000) / 1000;
    for (const f of [old, oldUpload, ...companions]) {
      writeFileSync(f, f === old ? 'half a copy' : 'left');
      utimesSync(f, twoHoursAgo, twoHoursAgo);
    }
    core.close();
    core = testCore({ mapsDir: maps, clock: core.clock });
    expect(readdirSync(maps)).not.toContain('01890000-0000-7000-8000-000000000000.mbtiles');
    // Before: the -wal and -shm files stayed for good.
    expect(readdirSync(maps).filter((f) => f.startsWith('.upload-') || f.includes('-wal') || f.includes('-shm'))).toEqual(['.upload-01890000-0000-7000-8000-000000000001.part']);
    expect(readdirSync(maps)).toContain('.upload-01890000-0000-7000-8000-000000000001.part');
    expect(core.maps.list().map((p) => p.id)).toEqual([kept.id]);
  });
});

describe('the sample city', () => {
  it('is built from @mapbox/mvt-fixtures as a vector MBTiles of San Francisco in Mapbox Streets v7, credited to OpenStreetMap', async () => {
    const file = join(dir, 'sample.mbtiles');
    buildSampleMap(file);
    const pkg = await core.maps.importFile(file);
    expect(pkg).toMatchObject({ name: 'San Francisco (sample)', kind: 'vector', schema: 'mapbox-streets', minZoom: 15, maxZoom: 15 });
    expect(pkg.layers).toEqual(expect.arrayContaining(['road', 'road_label', 'building', 'water']));
    expect(pkg.attribution).toContain('OpenStreetMap contributors (ODbL)');
    expect(pkg.attributionUrl).toBe('https://www.openstreetmap.org/copyright');
    // Its 3 × 3 tiles at zoom 15: around Duboce Park (from the tiles, the file gives no bounds).
    expect(pkg.bounds[0]).toBeCloseTo(-122.464, 2);
    expect(pkg.bounds[2]).toBeCloseTo(-122.431, 2);
    expect(pkg.bounds[1]).toBeLessThan(37.77);
    expect(pkg.bounds[3]).toBeGreaterThan(37.77);
    expect(readdirSync(dir)).toContain('LICENSE-ODbL-1.0.md');
  });

  it('is imported on the first start only: once removed, it stays removed', async () => {
    const file = join(dir, 'sample.mbtiles');
    buildSampleMap(file);
    const first = await core.maps.importSampleOnFirstStart(file);
    expect(first?.name).toBe('San Francisco (sample)');
    expect(await core.maps.importSampleOnFirstStart(file)).toBeUndefined();
    core.console['maps.remove']({ id: first!.id });
    core.close();
    core = testCore({ mapsDir: join(dir, 'maps') });
    expect(await core.maps.importSampleOnFirstStart(file)).toBeUndefined();
    expect(core.maps.list()).toEqual([]);
  });

  it('is where the map opens while the client has no POIs; once it has one, the map opens on its POIs', async () => {
    expect(core.console['maps.startView']({})).toBeNull();
    const file = join(dir, 'sample.mbtiles');
    buildSampleMap(file);
    const pkg = (await core.maps.importSampleOnFirstStart(file))!;
    const onPackage = { kind: 'place', lat: pkg.center[1], lng: pkg.center[0], zoom: 15 };
    expect(core.console['maps.startView']({})).toEqual(onPackage);
    const client = core.clients.create({ name: 'c' });
    const other = core.clients.create({ name: 'other' });
    expect(core.console['maps.startView']({ clientId: client.client_id })).toEqual(onPackage);
    await core.console['pois.add']({ clientId: client.client_id, fields: { lat: 37.79, lng: -122.4, name: 'Ferry Building', categories: [1] } });
    expect(core.console['maps.startView']({ clientId: client.client_id })).toEqual({ kind: 'bounds', south: 37.79, west: -122.4, north: 37.79, east: -122.4 });
    // Another client's POIs are not where this one's map opens.
    expect(core.console['maps.startView']({ clientId: other.client_id })).toEqual(onPackage);
  });
});
