/**
 * The map's grid: Web Mercator tiles, as a slippy map draws them. At level `g` the world is
 * 2^g × 2^g cells; a cell at level `z + 2` is 64 px wide on a map at zoom `z`. Declared in two
 * dialects that must agree, SQL (the filtered views) and JavaScript (which cells a viewport
 * covers), and with the SQL copied, frozen, into migration 013
 * (main/core/store/migrations/013-map-grid.ts), whose triggers keep `map_cells`. Changing either
 * needs a migration that rebuilds `map_cells` and its triggers
 * (test/core/frozen-migrations.test.ts fails until then).
 */

/** Web Mercator's limits: the poles are infinitely far; POIs beyond these fall in the edge cells. */
const MERCATOR_LAT = 85.05112878;

export function cellX(lng: number, scale: number): number {
  return Math.min(scale - 1, Math.max(0, Math.floor(((lng + 180.0) / 360.0) * scale)));
}

export function cellY(lat: number, scale: number): number {
  const clamped = Math.max(-MERCATOR_LAT, Math.min(MERCATOR_LAT, lat));
  const y = 0.5 - Math.log(Math.tan(((45.0 + clamped / 2.0) * Math.PI) / 180.0)) / (2.0 * Math.PI);
  return Math.min(scale - 1, Math.max(0, Math.floor(y * scale)));
}

/** The cell column of a longitude, as an SQL expression over a longitude and a scale (2^level) expression. */
export const sqlCellX = (lng: string, scale: string): string => `min(${scale} - 1, max(0, CAST(floor((${lng} + 180.0) / 360.0 * ${scale}) AS INTEGER)))`;

/** The cell row of a latitude (north is row 0), as an SQL expression. */
export const sqlCellY = (lat: string, scale: string): string =>
  `min(${scale} - 1, max(0, CAST(floor((0.5 - ln(tan(radians(45.0 + max(-${MERCATOR_LAT}, min(${MERCATOR_LAT}, ${lat})) / 2.0))) / (2.0 * pi())) * ${scale}) AS INTEGER)))`;

/** A block of cells of one level: columns x0..x1 and rows y0..y1, inclusive. */
export interface Block {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The latitude of the top edge of row `y` at `scale` (the inverse of cellY); rows at the edges reach the poles. */
function northOfRow(y: number, scale: number): number {
  if (y <= 0) return 90;
  if (y >= scale) return -90;
  return (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / scale))) * 180) / Math.PI;
}

/** Past the rounding of the inverse formulas: the exact test is each POI's own cell. */
const BLOCK_MARGIN = 1e-6;

/** A box holding every position whose cell at `scale` is in the block (a little more: callers test the cell). */
export function blockBox(block: Block, scale: number): { south: number; north: number; west: number; east: number } {
  return {
    north: Math.min(90, northOfRow(block.y0, scale) + BLOCK_MARGIN),
    south: Math.max(-90, (block.y1 >= scale - 1 ? -90 : northOfRow(block.y1 + 1, scale)) - BLOCK_MARGIN),
    west: Math.max(-180, (block.x0 * 360) / scale - 180 - BLOCK_MARGIN),
    east: Math.min(180, ((block.x1 + 1) * 360) / scale - 180 + BLOCK_MARGIN),
  };
}
