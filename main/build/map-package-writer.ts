import BetterSqlite3 from 'better-sqlite3';
import { rmSync, writeFileSync } from 'node:fs';
import { Compression, TileType, zxyToTileId } from 'pmtiles';
import type { TileFormat } from '../../shared/maps.js';

/** One tile to write, rows counted from the north (XYZ) as the map asks for them. */
export interface TileEntry {
  z: number;
  x: number;
  y: number;
  data: Uint8Array;
}

export interface PackageContents {
  format: TileFormat;
  name: string;
  attribution?: string;
  /** [west, south, east, north]. */
  bounds?: [number, number, number, number];
  /** Vector packages: the layers, as TileJSON lists them (left out to test a file without the list). */
  vectorLayers?: string[];
  tiles: TileEntry[];
}

const zooms = (tiles: TileEntry[]): [number, number] => [Math.min(...tiles.map((t) => t.z)), Math.max(...tiles.map((t) => t.z))];

/** An MBTiles 1.3 file: the build's sample city and the tests' fixtures. */
export function writeMbtiles(file: string, c: PackageContents): void {
  rmSync(file, { force: true });
  const db = new BetterSqlite3(file);
  try {
    db.exec(`CREATE TABLE metadata (name TEXT, value TEXT);
      CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
      CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);`);
    const [minZoom, maxZoom] = zooms(c.tiles);
    const meta: Record<string, string> = { name: c.name, format: c.format, minzoom: String(minZoom), maxzoom: String(maxZoom) };
    if (c.attribution !== undefined) meta.attribution = c.attribution;
    if (c.bounds) meta.bounds = c.bounds.join(',');
    if (c.vectorLayers) meta.json = JSON.stringify({ vector_layers: c.vectorLayers.map((id) => ({ id, fields: {} })) });
    const putMeta = db.prepare('INSERT INTO metadata VALUES (?, ?)');
    const putTile = db.prepare('INSERT INTO tiles VALUES (?, ?, ?, ?)');
    db.transaction(() => {
      for (const [k, v] of Object.entries(meta)) putMeta.run(k, v);
      for (const t of c.tiles) putTile.run(t.z, t.x, 2 ** t.z - 1 - t.y, Buffer.from(t.data));
    })();
  } finally {
    db.close();
  }
}

const TILE_TYPES: Record<TileFormat, TileType> = { pbf: TileType.Mvt, png: TileType.Png, jpg: TileType.Jpeg, webp: TileType.Webp };

/** Unsigned LEB128 varints, as PMTiles directories store their numbers. */
export function varints(values: number[]): number[] {
  const out: number[] = [];
  for (let v of values) {
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  }
  return out;
}

/**
 * A PMTiles v3 archive with one uncompressed root directory (enough for the sample and the
 * tests' fixtures; no npm package writes PMTiles, and the `pmtiles` reader checks what this
 * writes in every test that imports one).
 */
export function writePmtiles(file: string, c: PackageContents): void {
  const entries = c.tiles.map((t) => ({ id: zxyToTileId(t.z, t.x, t.y), data: t.data })).sort((a, b) => a.id - b.id);
  let offset = 0;
  const placed = entries.map((e) => {
    const at = offset;
    offset += e.data.byteLength;
    return { ...e, offset: at };
  });
  const ids = placed.map((e, i) => e.id - (i === 0 ? 0 : placed[i - 1]!.id));
  const directory = Uint8Array.from(
    varints([placed.length, ...ids, ...placed.map(() => 1), ...placed.map((e) => e.data.byteLength), ...placed.map((e) => e.offset + 1)]),
  );
  const metadata = Buffer.from(
    JSON.stringify({ name: c.name, ...(c.attribution !== undefined ? { attribution: c.attribution } : {}), ...(c.vectorLayers ? { vector_layers: c.vectorLayers.map((id) => ({ id, fields: {} })) } : {}) }),
  );
  const HEADER = 127;
  if (HEADER + directory.byteLength > 16384) throw new Error('the root directory must fit in the first 16 KiB; write fewer tiles');
  const header = Buffer.alloc(HEADER);
  const [minZoom, maxZoom] = zooms(c.tiles);
  const [w, s, e, n] = c.bounds ?? [-180, -85, 180, 85];
  header.write('PMTiles', 0, 'latin1');
  header.writeUInt8(3, 7);
  const u64 = (at: number, value: number): void => void header.writeBigUInt64LE(BigInt(value), at);
  const dataOffset = HEADER + directory.byteLength + metadata.byteLength;
  u64(8, HEADER);
  u64(16, directory.byteLength);
  u64(24, HEADER + directory.byteLength);
  u64(32, metadata.byteLength);
  u64(40, dataOffset + offset);
  u64(48, 0);
  u64(56, dataOffset);
  u64(64, offset);
  u64(72, placed.length);
  u64(80, placed.length);
  u64(88, placed.length);
  header.writeUInt8(1, 96);
  header.writeUInt8(Compression.None, 97);
  header.writeUInt8(Compression.None, 98);
  header.writeUInt8(TILE_TYPES[c.format], 99);
  header.writeUInt8(minZoom, 100);
  header.writeUInt8(maxZoom, 101);
  const e7 = (at: number, deg: number): void => void header.writeInt32LE(Math.round(deg * 1e7), at);
  e7(102, w);
  e7(106, s);
  e7(110, e);
  e7(114, n);
  header.writeUInt8(maxZoom, 118);
  e7(119, (w + e) / 2);
  e7(123, (s + n) / 2);
  writeFileSync(file, Buffer.concat([header, directory, metadata, ...placed.map((p) => Buffer.from(p.data))]));
}
