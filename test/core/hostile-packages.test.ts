import BetterSqlite3 from 'better-sqlite3';
import { execFile } from 'node:child_process';
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { constants, createGzip, gzipSync } from 'node:zlib';
import { Compression, TileType } from 'pmtiles';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { varints, writeMbtiles } from '../../main/build/map-package-writer.js';
import { MAX_DIRECTORY_BYTES, MAX_INFLATED_TILE_BYTES, MAX_TILE_BYTES } from '../../shared/maps.js';
import { root } from '../support/child-server.js';
import { testCore, type TestCore } from '../support/core.js';
import { rasterTiles, solidPng, tileAt, tilesAround } from '../support/map-fixtures.js';

// Lisbon, Praça do Comércio.
const LNG = -9.1366;
const LAT = 38.7075;
const MiB = 1024 ** 2;

let dir: string;
let core: TestCore;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hostile-maps-'));
  core = testCore({ mapsDir: join(dir, 'maps') });
});
afterEach(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Probe {
  /** Set when the child was killed: the import never answered. */
  timedOut?: boolean;
  imported?: { id: string; name: string };
  refused?: { code: string; message: string };
  /** Bytes of the tile asked for after the import, or why it was refused. */
  tile?: number | null;
  tileRefused?: { code: string; message: string };
  /** From the start of the import to its answer. */
  ms?: number;
  /** The child's peak resident memory. */
  maxRssMiB?: number;
}

/**
 * Imports a package (and reads one tile of it) in a child process: a file that makes the reader
 * run without end, or inflate gigabytes, must not take the test runner with it.
 */
const PROBE = `
const [packages, maps, file, tile] = process.argv.slice(1);
const { MapPackages } = await import(packages);
const store = new MapPackages(maps, Date.now);
const answer = {};
const started = performance.now();
try {
  const pkg = await store.importFile(file);
  answer.imported = { id: pkg.id, name: pkg.name };
  if (tile) {
    const [z, x, y] = tile.split('/').map(Number);
    try {
      const found = await store.tile(pkg.id, z, x, y);
      answer.tile = found === null ? null : found.bytes.byteLength;
    } catch (error) {
      answer.tileRefused = { code: error.code, message: error.message };
    }
  }
} catch (error) {
  answer.refused = { code: error.code, message: error.message };
}
answer.ms = Math.round(performance.now() - started);
store.close();
answer.maxRssMiB = Math.round(process.resourceUsage().maxRSS / 1024);
process.stdout.write(JSON.stringify(answer));
`;

/**
 * A refusal comes within this: the file is read in a side process (started with tsx from the
 * sources: one to two seconds on a busy machine), which refuses it in milliseconds.
 */
const REFUSED_WITHIN_MS = 8_000;

/** Kills the child after this long: the old reader never answered a file made to run without end. */
const PROBE_KILL_MS = 20_000;

function probe(file: string, tile?: string): Promise<Probe> {
  const packages = pathToFileURL(join(root, 'main/core/maps/packages.ts')).href;
  const args = ['--import', 'tsx', '--input-type=module', '-e', PROBE, packages, join(dir, 'probe-maps'), file, tile ?? ''];
  return new Promise((resolve, reject) => {
    execFile(process.execPath, args, { cwd: root, timeout: PROBE_KILL_MS, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error?.killed) resolve({ timedOut: true });
      else if (error) reject(new Error(`the probe failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as Probe);
    });
  });
}

const ENDLESS = 'WITH RECURSIVE r(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM r)';

/** An SQLite file made of `sql` (and a plain metadata table unless `sql` makes its own). */
function sqliteFile(name: string, sql: string): string {
  const file = join(dir, name);
  const db = new BetterSqlite3(file);
  db.exec(sql);
  db.close();
  return file;
}

const METADATA = `CREATE TABLE metadata (name TEXT, value TEXT); INSERT INTO metadata VALUES ('name', 'hostile'), ('format', 'png');`;
const PNG = `x'${Buffer.from(solidPng([10, 20, 30])).toString('hex')}'`;

describe('MBTiles: only plain tables are read, with the app\'s own SQL', () => {
  it('refuses, within seconds, an 8 KiB file whose "tiles" is a view over an endless recursive query', async () => {
    const file = sqliteFile(
      'endless.mbtiles',
      `${METADATA} CREATE VIEW tiles AS ${ENDLESS} SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r;`,
    );
    expect(statSync(file).size).toBeLessThanOrEqual(8 * 1024);
    const answer = await probe(file);
    // Before: no answer; `min(zoom_level)` over the view ran until the child was killed.
    expect(answer.timedOut).toBeUndefined();
    expect(answer.refused).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(/not an MBTiles file: its "tiles" is a view .*a valid MBTiles file keeps its tiles in a plain table "tiles"/) });
    expect(answer.ms).toBeLessThan(REFUSED_WITHIN_MS);
  }, 60_000);

  const refusals: Array<[string, string, RegExp]> = [
    [
      'a "metadata" view over an endless recursive query',
      `CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
       INSERT INTO tiles VALUES (0, 0, 0, ${PNG});
       CREATE VIEW metadata AS ${ENDLESS} SELECT 'name' AS name, 'x' AS value FROM r;`,
      /its "metadata" is a view .*a valid MBTiles file has a plain table "metadata" \(name, value\)/,
    ],
    [
      'a "tiles" view over "map" and "images" where "map" is itself an endless view',
      `${METADATA}
       CREATE TABLE images (tile_data BLOB, tile_id TEXT);
       INSERT INTO images VALUES (${PNG}, 'a');
       CREATE VIEW map AS ${ENDLESS} SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, 'a' AS tile_id FROM r;
       CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;`,
      /its "tiles" is a view .*, and its "map" is a view/,
    ],
    [
      'a "tiles" virtual table',
      `${METADATA}
       CREATE VIRTUAL TABLE tiles USING fts5(zoom_level, tile_column, tile_row, tile_data);
       INSERT INTO tiles VALUES (0, 0, 0, ${PNG});`,
      /its "tiles" is a virtual table/,
    ],
    [
      // Before: each read computed 200 MB of text, to refuse it as a tile over 8 MiB.
      'a "tiles" table whose tile_data is computed on every read',
      `${METADATA}
       CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB GENERATED ALWAYS AS (hex(zeroblob(100000000))) VIRTUAL);
       INSERT INTO tiles (zoom_level, tile_column, tile_row) VALUES (0, 0, 0);`,
      /its "tiles" table has columns computed by SQLite \(tile_data\), which are not read/,
    ],
    [
      'a "tiles" that is only a trigger',
      `${METADATA}
       CREATE TABLE t (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
       CREATE TRIGGER tiles AFTER INSERT ON t BEGIN SELECT 1; END;`,
      /its "tiles" is a trigger, not a table/,
    ],
    [
      // As before: the import read the metadata table and refused a file without one.
      'a file without a metadata table',
      `CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
       INSERT INTO tiles VALUES (0, 0, 0, ${PNG});`,
      /not an MBTiles file: it has no "metadata" table/,
    ],
  ];

  for (const [what, sql, message] of refusals) {
    it(`refuses ${what}, within seconds, naming what it found`, async () => {
      const answer = await probe(sqliteFile('hostile.mbtiles', sql));
      expect(answer.timedOut).toBeUndefined();
      expect(answer.refused).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(message) });
      expect(answer.ms).toBeLessThan(REFUSED_WITHIN_MS);
    }, 60_000);
  }

  /** A deduplicated package as its tool writes it: `tiles` is a view joining two plain tables. */
  const deduplicated = (name: string, tables: string, tilesView: string): string => {
    const coords = tilesAround(LNG, LAT, 12, 12);
    const file = sqliteFile(name, `${METADATA} ${tables} ${tilesView}`);
    const db = new BetterSqlite3(file);
    const [coordsTable, dataTable, key] = tables.includes('tiles_shallow') ? ['tiles_shallow', 'tiles_data', 'tile_data_id'] : ['map', 'images', 'tile_id'];
    // Every tile is the same image, stored once: what deduplication is for.
    db.prepare(`INSERT INTO ${dataTable} (${key}, tile_data) VALUES (1, ?)`).run(Buffer.from(solidPng([10, 20, 30])));
    const put = db.prepare(`INSERT INTO ${coordsTable} (zoom_level, tile_column, tile_row, ${key}) VALUES (?, ?, ?, 1)`);
    for (const c of coords) put.run(c.z, c.x, 2 ** c.z - 1 - c.y);
    db.close();
    return file;
  };
  const MAP_IMAGES = `CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id TEXT, grid_id TEXT);
    CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row);
    CREATE TABLE images (tile_data BLOB, tile_id TEXT);
    CREATE UNIQUE INDEX images_id ON images (tile_id);`;
  const MAP_IMAGES_VIEW = `CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column, map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;`;

  it('reads the deduplicated layout ("map" and "images") by joining them itself', async () => {
    const pkg = await core.maps.importFile(deduplicated('dedup.mbtiles', MAP_IMAGES, MAP_IMAGES_VIEW));
    expect(pkg).toMatchObject({ name: 'hostile', container: 'mbtiles', format: 'png', minZoom: 12, maxZoom: 12 });
    expect(pkg.bounds[0]).toBeLessThan(LNG);
    expect(pkg.bounds[2]).toBeGreaterThan(LNG);
    const { x, y } = tileAt(LNG, LAT, 12);
    expect(Buffer.from((await core.maps.tile(pkg.id, 12, x, y))!.bytes).equals(Buffer.from(solidPng([10, 20, 30])))).toBe(true);
    expect(await core.maps.tile(pkg.id, 12, x + 5, y)).toBeNull();
  });

  it('never runs the file\'s own "tiles" view: beside plain "map" and "images", even an endless one is harmless', async () => {
    const file = deduplicated('dedup-endless.mbtiles', MAP_IMAGES, `CREATE VIEW tiles AS ${ENDLESS} SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r;`);
    const { x, y } = tileAt(LNG, LAT, 12);
    const answer = await probe(file, `12/${x}/${y}`);
    // Before: no answer (the view was queried).
    expect(answer.timedOut).toBeUndefined();
    expect(answer.imported).toMatchObject({ name: 'hostile' });
    expect(answer.tile).toBe(solidPng([10, 20, 30]).byteLength);
    expect(answer.ms).toBeLessThan(REFUSED_WITHIN_MS);
  }, 60_000);

  it('reads Planetiler\'s compact layout ("tiles_shallow" and "tiles_data") by joining them itself', async () => {
    const file = deduplicated(
      'compact.mbtiles',
      `CREATE TABLE tiles_shallow (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data_id INTEGER, PRIMARY KEY (zoom_level, tile_column, tile_row)) WITHOUT ROWID;
       CREATE TABLE tiles_data (tile_data_id INTEGER PRIMARY KEY, tile_data BLOB);`,
      `CREATE VIEW tiles AS SELECT tiles_shallow.zoom_level AS zoom_level, tiles_shallow.tile_column AS tile_column, tiles_shallow.tile_row AS tile_row, tiles_data.tile_data AS tile_data
       FROM tiles_shallow JOIN tiles_data ON tiles_shallow.tile_data_id = tiles_data.tile_data_id;`,
    );
    const pkg = await core.maps.importFile(file);
    expect(pkg).toMatchObject({ format: 'png', minZoom: 12, maxZoom: 12 });
    const { x, y } = tileAt(LNG, LAT, 12);
    expect(Buffer.from((await core.maps.tile(pkg.id, 12, x, y))!.bytes).equals(Buffer.from(solidPng([10, 20, 30])))).toBe(true);
  });

  it('reads a "tiles_with_hash" table behind a "tiles" view, and still reads a plain "tiles" table as before', async () => {
    const hashed = sqliteFile(
      'hashed.mbtiles',
      `${METADATA}
       CREATE TABLE tiles_with_hash (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL, tile_data BLOB, tile_hash TEXT, PRIMARY KEY (zoom_level, tile_column, tile_row));
       INSERT INTO tiles_with_hash VALUES (3, 4, 2, ${PNG}, 'h');
       CREATE VIEW tiles AS SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles_with_hash;`,
    );
    const pkg = await core.maps.importFile(hashed);
    expect(pkg).toMatchObject({ format: 'png', minZoom: 3, maxZoom: 3 });
    expect((await core.maps.tile(pkg.id, 3, 4, 2 ** 3 - 1 - 2))?.bytes.byteLength).toBe(solidPng([10, 20, 30]).byteLength);

    const flat = join(dir, 'flat.mbtiles');
    writeMbtiles(flat, { format: 'png', name: 'flat', tiles: rasterTiles([{ z: 1, x: 1, y: 0 }], [1, 2, 3]) });
    const plain = await core.maps.importFile(flat);
    expect((await core.maps.tile(plain.id, 1, 1, 0))?.bytes.byteLength).toBe(solidPng([1, 2, 3]).byteLength);
  });
});

/** Gzipped zeros, streamed: the bomb is about 1/1000 of what it inflates to, and never whole in memory. */
async function gzippedZeros(bytes: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9, strategy: constants.Z_RLE });
  const out: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => out.push(chunk));
  const ended = new Promise((resolve) => gzip.once('end', resolve));
  const zeros = Buffer.alloc(16 * MiB);
  for (let left = bytes; left > 0; left -= zeros.length) {
    if (!gzip.write(zeros.subarray(0, Math.min(left, zeros.length)))) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await ended;
  return Buffer.concat(out);
}

/** A PMTiles directory: entries of tile id, run length (0 for a leaf directory), length and offset. */
const directory = (entries: Array<[number, number, number, number]>): Buffer =>
  Buffer.from(varints([entries.length, ...entries.map((e, i) => e[0] - (i === 0 ? 0 : entries[i - 1]![0])), ...entries.map((e) => e[1]), ...entries.map((e) => e[2]), ...entries.map((e) => e[3] + 1)]));

interface Sections {
  internal: Compression;
  tiles: Compression;
  type?: TileType;
  root: Buffer;
  metadata: Buffer;
  leaves?: Buffer;
  /** The tile data, or its size for a sparse file (holes read as zeros). */
  data: Buffer | number;
}

/** A PMTiles v3 archive with its sections as given (the build's writer compresses nothing). */
function pmtilesFile(name: string, s: Sections): string {
  const file = join(dir, name);
  const header = Buffer.alloc(127);
  const leaves = s.leaves ?? Buffer.alloc(0);
  const dataLength = typeof s.data === 'number' ? s.data : s.data.length;
  const at = { root: 127, metadata: 127 + s.root.length, leaves: 127 + s.root.length + s.metadata.length };
  const dataAt = at.leaves + leaves.length;
  header.write('PMTiles', 0, 'latin1');
  header.writeUInt8(3, 7);
  const u64 = (offset: number, value: number): void => void header.writeBigUInt64LE(BigInt(value), offset);
  [at.root, s.root.length, at.metadata, s.metadata.length, at.leaves, leaves.length, dataAt, dataLength, 1, 1, 1].forEach((v, i) => u64(8 + 8 * i, v));
  header.writeUInt8(1, 96);
  header.writeUInt8(s.internal, 97);
  header.writeUInt8(s.tiles, 98);
  header.writeUInt8(s.type ?? TileType.Mvt, 99);
  header.writeInt32LE(-1800000000, 102);
  header.writeInt32LE(-850000000, 106);
  header.writeInt32LE(1800000000, 110);
  header.writeInt32LE(850000000, 114);
  const head = Buffer.concat([header, s.root, s.metadata, leaves]);
  if (typeof s.data === 'number') {
    const fd = openSync(file, 'w');
    writeSync(fd, head);
    ftruncateSync(fd, head.length + s.data);
    closeSync(fd);
  } else writeFileSync(file, Buffer.concat([head, s.data]));
  return file;
}

/** The most a probe may hold at its peak: the child's own ~100 MiB, and the limits' few MiB. */
const BOUNDED_RSS_MIB = 256;
const GIB = 1024 ** 3;

describe('PMTiles: what the reader inflates or reads at once is bounded', () => {
  let bomb: Buffer;
  // A vector tile the map can read: one empty layer.
  const tile = gzipSync(Buffer.from([0x1a, 0x00]));
  const G = Compression.Gzip;

  beforeAll(async () => {
    bomb = await gzippedZeros(GIB);
  });

  it('refuses an archive whose leaf directory inflates from 1 MB to 1 GiB, in bounded memory', async () => {
    expect(bomb.length).toBeLessThan(1.1 * MiB);
    // The root sends every tile to one leaf directory: the bomb.
    const file = pmtilesFile('leaf-bomb.pmtiles', { internal: G, tiles: G, root: gzipSync(directory([[0, 0, bomb.length, 0]])), metadata: gzipSync('{}'), leaves: bomb, data: tile });
    const answer = await probe(file);
    // Before: refused as "Empty directory is invalid", once 1 GiB was inflated (peak RSS 3.1 GiB).
    expect(answer.refused).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(new RegExp(`tile directory inflates to more than ${MAX_DIRECTORY_BYTES / MiB} MiB`)) });
    expect(answer.maxRssMiB).toBeLessThan(BOUNDED_RSS_MIB);
  }, 60_000);

  it('refuses an archive whose root directory inflates past the limit', async () => {
    // The reader takes the root from the first 16 KiB only: about 15 MiB of zeros is the most a bomb there inflates to.
    const root = await gzippedZeros(15 * MiB);
    expect(root.length).toBeLessThan(16 * 1024 - 127);
    const file = pmtilesFile('root-bomb.pmtiles', { internal: G, tiles: G, root, metadata: gzipSync('{}'), data: tile });
    // Before: inflated whole; the empty root then read as an archive without tiles.
    await expect(core.maps.importFile(file)).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(/a tile directory inflates to more than 4 MiB/) });
    // A root declared as the whole 1 GiB bomb is inflated from its first 16 KiB, and stopped the same way.
    const declared = pmtilesFile('root-gib.pmtiles', { internal: G, tiles: G, root: bomb, metadata: gzipSync('{}'), data: tile });
    // Before: refused, but as "not a PMTiles archive: unexpected end of file".
    await expect(core.maps.importFile(declared)).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(/a tile directory inflates to more than 4 MiB/) });
  });

  it('refuses an archive whose tile inflates from 1 MB to 1 GiB, in bounded memory', async () => {
    const file = pmtilesFile('tile-bomb.pmtiles', { internal: G, tiles: G, root: gzipSync(directory([[0, 1, bomb.length, 0]])), metadata: gzipSync('{}'), data: bomb });
    const answer = await probe(file);
    // Before: imported, having inflated the tile to learn its layers (peak RSS 3.1 GiB).
    expect(answer.refused).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(new RegExp(`a tile inflates to more than ${MAX_INFLATED_TILE_BYTES / MiB} MiB`)) });
    expect(answer.maxRssMiB).toBeLessThan(BOUNDED_RSS_MIB);
  }, 60_000);

  it('ignores metadata that inflates from 1 MB to 1 GiB, as any unreadable metadata, in bounded memory', async () => {
    const file = pmtilesFile('metadata-bomb.pmtiles', { internal: G, tiles: G, root: gzipSync(directory([[0, 1, tile.length, 0]])), metadata: bomb, data: tile });
    const answer = await probe(file);
    // Before: imported too, at a peak RSS of 3.1 GiB.
    expect(answer.imported).toMatchObject({ name: 'metadata-bomb' });
    expect(answer.maxRssMiB).toBeLessThan(BOUNDED_RSS_MIB);
  }, 60_000);

  it('refuses to serve a tile stored as 1 GiB, in bounded memory', async () => {
    // A raster archive: the import reads no tile; serving it read the whole GiB into memory.
    const file = pmtilesFile('huge-tile.pmtiles', { internal: G, tiles: Compression.None, type: TileType.Png, root: gzipSync(directory([[0, 1, GIB, 0]])), metadata: gzipSync('{}'), data: GIB });
    const answer = await probe(file, '0/0/0');
    expect(answer.imported).toBeDefined();
    expect(answer.tileRefused).toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(new RegExp(`1024 MiB, over the ${MAX_TILE_BYTES / MiB} MiB a tile may hold`)) });
    expect(answer.maxRssMiB).toBeLessThan(BOUNDED_RSS_MIB);
  }, 60_000);

  it('refuses an archive compressed with a method the map does not read, saying which', async () => {
    const file = pmtilesFile('zstd.pmtiles', { internal: Compression.Zstd, tiles: Compression.Zstd, root: directory([[0, 1, tile.length, 0]]), metadata: Buffer.from('{}'), data: tile });
    await expect(core.maps.importFile(file)).rejects.toMatchObject({ code: 'UNSUPPORTED_FORMAT', message: expect.stringMatching(/a tile directory is compressed with Zstandard, which the map does not read/) });
  });
});
