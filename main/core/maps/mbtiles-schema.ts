import type { Database } from 'better-sqlite3';
import { BadPackage } from './archive.js';

/**
 * Where an MBTiles file's tiles are read from: the app's own SQL over plain tables. Nothing of the
 * file's own SQL is ever run. A view, a virtual table or a computed column is a query the file
 * wrote, and better-sqlite3 runs it on the main thread with no way to stop it: an 8 KiB file whose
 * `tiles` is a view over an endless recursive query hangs the app.
 */
export interface TileSource {
  /** The table holding each tile's coordinates: its zooms and extent are read without the tiles. */
  coords: string;
  /** The FROM clause that reaches each tile's bytes. */
  from: string;
  /** Columns, qualified by their table: in a join, the other table may have one of the same name. */
  zoom: string;
  column: string;
  row: string;
  data: string;
}

const TILE_COLUMNS = ['zoom_level', 'tile_column', 'tile_row', 'tile_data'] as const;

const col = (table: string, column: string): string => `"${table}"."${column}"`;

const flat = (table: string): TileSource => ({
  coords: `"${table}"`,
  from: `"${table}"`,
  zoom: col(table, 'zoom_level'),
  column: col(table, 'tile_column'),
  row: col(table, 'tile_row'),
  data: col(table, 'tile_data'),
});

const joined = (coords: string, images: string, key: string): TileSource => ({
  ...flat(coords),
  from: `"${coords}" JOIN "${images}" ON ${col(images, key)} = ${col(coords, key)}`,
  data: col(images, 'tile_data'),
});

interface Layout {
  /** Each plain table the layout reads, with the columns it reads from it. */
  tables: Record<string, readonly string[]>;
  source: TileSource;
}

/**
 * Where the tiles are when `tiles` is a view, as the tools that write such files lay them out: the
 * app joins their tables itself, whatever the file's view says.
 */
const LAYOUTS: readonly Layout[] = [
  // Deduplicated, as mbutil and MapTiler write it: each distinct image once, and a map of tiles to images.
  { tables: { map: ['zoom_level', 'tile_column', 'tile_row', 'tile_id'], images: ['tile_data', 'tile_id'] }, source: joined('map', 'images', 'tile_id') },
  // Deduplicated, as Planetiler writes it by default.
  {
    tables: { tiles_shallow: ['zoom_level', 'tile_column', 'tile_row', 'tile_data_id'], tiles_data: ['tile_data_id', 'tile_data'] },
    source: joined('tiles_shallow', 'tiles_data', 'tile_data_id'),
  },
  // Each tile with a hash of its bytes, as Martin's `mbtiles` tool writes it.
  { tables: { tiles_with_hash: TILE_COLUMNS }, source: flat('tiles_with_hash') },
];

const VALID_TILES =
  'a valid MBTiles file keeps its tiles in a plain table "tiles" (zoom_level, tile_column, tile_row, tile_data), ' +
  'or, with "tiles" a view, in the plain tables "map" and "images", "tiles_shallow" and "tiles_data", or "tiles_with_hash"';
const VALID_METADATA = 'a valid MBTiles file has a plain table "metadata" (name, value)';

/** What the schema says of each name the reader may touch, before anything is read through it. */
interface Found {
  type: string;
  sql: string | null;
}

const KIND: Record<string, string> = {
  view: 'a view (a query stored in the file, which is not run)',
  trigger: 'a trigger, not a table',
  index: 'an index, not a table',
};

/**
 * Checks the file's schema (`sqlite_master`, and `table_xinfo` for the plain tables it names)
 * before any other query reads it, and says where its tiles are; refuses anything else with a
 * BadPackage naming what it found and what a valid MBTiles holds.
 * (https://github.com/mapbox/mbtiles-spec/blob/master/1.3/spec.md)
 */
export function tileSource(db: Database): TileSource {
  const names = ['metadata', 'tiles', ...LAYOUTS.flatMap((l) => Object.keys(l.tables))];
  // SQLite resolves names regardless of ASCII case; so does this.
  const rows = db
    .prepare<string[], Found & { name: string }>(`SELECT type, lower(name) AS name, sql FROM sqlite_master WHERE lower(name) IN (${names.map(() => '?').join(', ')})`)
    .all(...names);
  const found = new Map<string, Found>();
  // Tables, views and indexes share one namespace; a trigger may have the same name as one of them, which is what reads see.
  for (const row of rows) if (!found.has(row.name) || row.type !== 'trigger') found.set(row.name, row);

  /** Why `name` is not a plain table with `columns`, in words; null when it is one. */
  const problem = (name: string, columns: readonly string[]): string | null => {
    const object = found.get(name);
    if (object === undefined) return `it has no "${name}" table`;
    if (object.type !== 'table') return `its "${name}" is ${KIND[object.type] ?? `a ${object.type}, not a table`}`;
    // The type column says "table" for a virtual table too: its statement tells them apart.
    if (!/^CREATE\s+TABLE\s/i.test(object.sql ?? '')) return `its "${name}" is a virtual table (filled by code when read, not stored)`;
    const listed = db.prepare<[string], { name: string; hidden: number }>('SELECT lower(name) AS name, hidden FROM pragma_table_xinfo(?)').all(name);
    const computed = listed.filter((c) => c.hidden !== 0).map((c) => c.name);
    if (computed.length > 0) return `its "${name}" table has columns computed by SQLite (${computed.join(', ')}), which are not read`;
    const missing = columns.filter((c) => !listed.some((l) => l.name === c));
    if (missing.length > 0) return `its "${name}" table has no column ${missing.join(', ')}`;
    return null;
  };

  const metadata = problem('metadata', ['name', 'value']);
  if (metadata !== null) throw new BadPackage(`not an MBTiles file: ${metadata}; ${VALID_METADATA}`);
  const tiles = problem('tiles', TILE_COLUMNS);
  if (tiles === null) return flat('tiles');
  for (const layout of LAYOUTS) {
    const problems = Object.entries(layout.tables).map(([name, columns]) => problem(name, columns));
    if (problems.every((p) => p === null)) return layout.source;
    // All of a layout's tables named, but not as plain tables: that is what the file is, and why it is refused.
    if (Object.keys(layout.tables).every((name) => found.has(name))) {
      throw new BadPackage(`not an MBTiles file: ${tiles}, and ${problems.filter((p) => p !== null).join(', and ')}; ${VALID_TILES}`);
    }
  }
  throw new BadPackage(`not an MBTiles file: ${tiles}; ${VALID_TILES}`);
}
