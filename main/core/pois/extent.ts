import type { Database } from 'better-sqlite3';

/** Where a client's POIs lie, as a box the map can fit. */
export interface Extent {
  south: number;
  west: number;
  north: number;
  east: number;
}

/** A level with more cells than this is too costly to read for a start view: a coarser one is used. */
const MAX_EXTENT_CELLS = 2_000;
/** Up to this many POIs, the box is read from the POIs themselves (one index range, a few ms). */
const EXACT_EXTENT_AT_MOST = 20_000;

type Box = { south: number | null; west: number; north: number; east: number };

/**
 * The box around a client's POIs. A client of at most EXACT_EXTENT_AT_MOST POIs: their exact box.
 * A bigger one: read from the map's grid (migrations 013 and 017), at the finest level whose cells
 * number at most MAX_EXTENT_CELLS and are all stored (the grid stores a fine level only where it
 * is dense), the box of the cells' mean positions: at most a cell inside the true box, for a few
 * thousand index rows however many POIs the client has. Undefined when the client has none.
 */
export function clientExtent(db: Database, clientId: string): Extent | undefined {
  const client = db.prepare<[string], number>('SELECT rowid FROM clients WHERE id = ?').pluck().get(clientId);
  if (client === undefined) return undefined;
  const cellsAt = db.prepare<[number, number, number], { cells: number; n: number | null }>(
    'SELECT count(*) AS cells, sum(n) AS n FROM (SELECT n FROM map_cells WHERE client = ? AND level = ? LIMIT ?)',
  );
  const levels = db.prepare<[], number>('SELECT level FROM map_levels ORDER BY level DESC').pluck().all();
  const coarsest = levels.at(-1);
  if (coarsest === undefined) return undefined;
  const total = cellsAt.get(client, coarsest, MAX_EXTENT_CELLS + 1)?.n ?? 0;
  if (total === 0) return undefined;
  let box: Box | undefined;
  if (total <= EXACT_EXTENT_AT_MOST) {
    box = db.prepare<[string], Box>('SELECT min(lat) AS south, min(lng) AS west, max(lat) AS north, max(lng) AS east FROM pois WHERE client_id = ?').get(clientId);
  } else {
    const level =
      levels.find((l) => {
        const at = cellsAt.get(client, l, MAX_EXTENT_CELLS + 1);
        return at !== undefined && at.cells <= MAX_EXTENT_CELLS && at.n === total;
      }) ?? coarsest;
    box = db
      .prepare<[number, number], Box>('SELECT min(sum_lat / n) AS south, min(sum_lng / n) AS west, max(sum_lat / n) AS north, max(sum_lng / n) AS east FROM map_cells WHERE client = ? AND level = ? AND n > 0')
      .get(client, level);
  }
  return box && box.south !== null ? { south: box.south, west: box.west, north: box.north, east: box.east } : undefined;
}
