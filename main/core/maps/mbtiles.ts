import BetterSqlite3, { type Database, type Statement } from 'better-sqlite3';
import { MAX_TILE_BYTES, vectorSchema } from '../../../shared/maps.js';
import { BadPackage, tileRangeBounds, type ArchiveInfo, type TileArchive } from './archive.js';
import { tileSource, type TileSource } from './mbtiles-schema.js';
import { inflatedOffLoop, sniffTileFormat, vectorLayers } from './tile-bytes.js';
import { bindingOption } from '../store/database-file.js';

/** Tiles read to learn a vector package's layers when its metadata does not list them. */
const SAMPLES = 16;

/** A tile row as read: its bytes (null when over the limit) and its size. */
interface TileRow {
  tile_data: Buffer | null;
  size: number;
}

/** A tile's bytes, unless it is over the limit (then only its size: a 200 MB tile is not read whole). */
const underLimit = (data: string): string => `CASE WHEN length(${data}) > ${MAX_TILE_BYTES} THEN NULL ELSE ${data} END AS tile_data, length(${data}) AS size`;
const tooBig = (size: number): BadPackage => new BadPackage(`a tile holds ${(size / 1024 ** 2).toFixed(0)} MiB, over the ${MAX_TILE_BYTES / 1024 ** 2} MiB a tile may hold`);

const numbers = (text: string | undefined, count: number): number[] | null => {
  const parts = text?.split(',').map(Number);
  return parts?.length === count && parts.every(Number.isFinite) ? parts : null;
};

/**
 * An MBTiles file (https://github.com/mapbox/mbtiles-spec): SQLite with a `metadata` table and
 * a `tiles` table or view whose rows count from the south (TMS), so y is flipped on every read.
 * Opened read-only: a package is never written to. Only plain tables are read, with the app's
 * own SQL (see mbtiles-schema.ts): the file's schema is checked before anything else is read.
 */
export class MbtilesArchive implements TileArchive {
  private readonly db: Database;
  private readonly source: TileSource;
  private readonly byTile: Statement<[number, number, number], TileRow>;

  constructor(file: string, nativeBinding?: string) {
    const db = new BetterSqlite3(file, { readonly: true, fileMustExist: true, ...bindingOption(nativeBinding) });
    try {
      const s = tileSource(db);
      this.source = s;
      this.byTile = db.prepare(`SELECT ${underLimit(s.data)} FROM ${s.from} WHERE ${s.zoom} = ? AND ${s.column} = ? AND ${s.row} = ?`);
    } catch (error) {
      db.close();
      if (error instanceof BadPackage) throw error;
      throw new BadPackage(`not an MBTiles file: ${(error as Error).message}`);
    }
    this.db = db;
  }

  async info(): Promise<ArchiveInfo> {
    const meta = this.metadata();
    const s = this.source;
    const zooms = this.db.prepare(`SELECT min(${s.zoom}) AS lo, max(${s.zoom}) AS hi FROM ${s.coords}`).get() as { lo: number | null; hi: number | null };
    if (zooms.lo === null || zooms.hi === null) throw new BadPackage('the MBTiles file holds no tiles');
    const sampled = this.db.prepare(`SELECT ${underLimit(s.data)} FROM ${s.from} WHERE ${s.zoom} = ? AND length(${s.data}) > 0 LIMIT ${SAMPLES}`).all(zooms.hi) as TileRow[];
    const samples = sampled.map((r) => {
      if (r.tile_data === null) throw tooBig(r.size);
      return r.tile_data;
    });
    const format = samples[0] ? sniffTileFormat(samples[0]) : null;
    if (format === null) throw new BadPackage(`its tiles are not PNG, JPEG, WebP or vector tiles (metadata says "${meta.format ?? 'nothing'}")`);
    const layers = format === 'pbf' ? this.layers(meta.json, samples) : [];
    const minZoom = Number.isInteger(Number(meta.minzoom)) ? Number(meta.minzoom) : zooms.lo;
    const maxZoom = Number.isInteger(Number(meta.maxzoom)) ? Number(meta.maxzoom) : zooms.hi;
    const bounds = (numbers(meta.bounds, 4) as ArchiveInfo['bounds'] | null) ?? this.tileBounds(zooms.hi);
    const center = (numbers(meta.center, 3) as ArchiveInfo['center'] | null) ?? [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, maxZoom];
    return {
      container: 'mbtiles',
      format,
      name: meta.name ?? '',
      minZoom,
      maxZoom,
      bounds,
      center,
      attribution: meta.attribution ?? '',
      layers,
      schema: vectorSchema(layers),
    };
  }

  async tile(z: number, x: number, y: number): Promise<Uint8Array | null> {
    const row = this.byTile.get(z, x, 2 ** z - 1 - y);
    if (!row || row.size === 0) return null;
    if (row.tile_data === null) throw tooBig(row.size);
    return inflatedOffLoop(row.tile_data);
  }

  close(): void {
    this.db.close();
  }

  private metadata(): Record<string, string | undefined> {
    try {
      const rows = this.db.prepare('SELECT name, value FROM metadata').all() as { name: string; value: string }[];
      return Object.fromEntries(rows.map((r) => [r.name, r.value]));
    } catch (error) {
      throw new BadPackage(`not an MBTiles file: ${(error as Error).message}`);
    }
  }

  /** From the TileJSON in `json` when it lists them, else from a few tiles. */
  private layers(json: string | undefined, samples: Buffer[]): string[] {
    try {
      const parsed: unknown = json ? JSON.parse(json) : null;
      if (typeof parsed === 'object' && parsed !== null && 'vector_layers' in parsed && Array.isArray(parsed.vector_layers)) {
        const ids = parsed.vector_layers.map((l: unknown) => (typeof l === 'object' && l !== null && 'id' in l ? String(l.id) : ''));
        if (ids.length > 0 && ids.every((id) => id !== '')) return ids;
      }
    } catch {
      // A broken `json` row is common enough; the tile itself says which layers it has.
    }
    try {
      return [...new Set(samples.flatMap(vectorLayers))].sort();
    } catch (error) {
      throw new BadPackage(`its vector tiles cannot be read: ${(error as Error).message}`);
    }
  }

  private tileBounds(z: number): ArchiveInfo['bounds'] {
    const s = this.source;
    const r = this.db
      .prepare(`SELECT min(${s.column}) AS x0, max(${s.column}) AS x1, min(${s.row}) AS r0, max(${s.row}) AS r1 FROM ${s.coords} WHERE ${s.zoom} = ?`)
      .get(z) as { x0: number; x1: number; r0: number; r1: number };
    const flip = (row: number): number => 2 ** z - 1 - row;
    return tileRangeBounds(z, r.x0, r.x1, flip(r.r1), flip(r.r0));
  }
}
