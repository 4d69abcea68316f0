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

/**
 * The box around a client's POIs, read from the map's grid (migration 013), not from the POIs:
 * at the finest level whose cells number at most MAX_EXTENT_CELLS, the box of the cells' mean
 * positions. That is exact while each cell holds one POI, and otherwise at most a cell inside the
 * true box; it costs a few thousand index rows however many POIs the client has. Undefined when
 * the client has none.
 */
export function clientExtent(db: Database, clientId: string): Extent | undefined {
  const client = db.prepare<[string], number>('SELECT rowid FROM clients WHERE id = ?').pluck().get(clientId);
  if (client === undefined) return undefined;
  const levels = db.prepare<[], number>('SELECT level FROM map_levels ORDER BY level DESC').pluck().all();
  const cellsAt = db.prepare<[number, number, number], number>('SELECT count(*) FROM (SELECT 1 FROM map_cells WHERE client = ? AND level = ? LIMIT ?)').pluck();
  const level = levels.find((l) => cellsAt.get(client, l, MAX_EXTENT_CELLS + 1)! <= MAX_EXTENT_CELLS) ?? levels.at(-1);
  if (level === undefined) return undefined;
  const box = db
    .prepare<[number, number], { south: number | null; west: number; north: number; east: number }>(
      'SELECT min(sum_lat / n) AS south, min(sum_lng / n) AS west, max(sum_lat / n) AS north, max(sum_lng / n) AS east FROM map_cells WHERE client = ? AND level = ? AND n > 0',
    )
    .get(client, level);
  return box && box.south !== null ? { south: box.south, west: box.west, north: box.north, east: box.east } : undefined;
}
