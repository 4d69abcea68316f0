import type { Database, Statement } from 'better-sqlite3';
import { blockBox, type Block } from './grid.js';
import { CLIENT_KEY, type Cell, type PoiStore } from './poi-store.js';

/** The coarsest level, stored for every POI (migration 017). */
const FIRST_LEVEL = 2;
/** A cell's parent is this many levels up: the grid keeps every other level (migration 013). */
const PARENT_UP = 2;

const rowsOf = (block: Block): string => JSON.stringify(Array.from({ length: block.y1 - block.y0 + 1 }, (_, i) => block.y0 + i));

/**
 * The cells of the map's grid, whole, at any of its levels. Since migration 017 the database
 * stores a level's cells only under a parent two levels up that is dense (more than a threshold
 * of POIs, `map_dense`); under any other parent, the POIs are counted from the R*Tree here, at most
 * that threshold per parent. So a block of cells costs its stored rows plus a bounded walk, and
 * answers what a grid stored in full would.
 */
export class GridCells {
  private readonly stored: Statement<[string, number, string, number, number], Cell>;
  private readonly dense: Statement<[string, number, string, number, number], { cy: number; cx: number }>;

  constructor(
    db: Database,
    private readonly store: PoiStore,
  ) {
    // Rows listed, not a range: each row is then a seek and a range of columns in the key.
    this.stored = db.prepare(
      `SELECT cy, cx, n, sum_lat, sum_lng, sum_id FROM map_cells WHERE client = ${CLIENT_KEY} AND level = ? AND cy IN (SELECT value FROM json_each(?)) AND cx BETWEEN ? AND ?`,
    );
    this.dense = db.prepare(`SELECT cy, cx FROM map_dense WHERE client = ${CLIENT_KEY} AND level = ? AND cy IN (SELECT value FROM json_each(?)) AND cx BETWEEN ? AND ?`);
  }

  /** Every non-empty cell of `level` in the block, with its count and sums. */
  cells(clientId: string, level: number, block: Block): Cell[] {
    const found = this.stored.all(clientId, level, rowsOf(block), block.x0, block.x1);
    if (level === FIRST_LEVEL) return found;
    // Two levels up is a quarter of the rows and columns.
    const shift = PARENT_UP;
    const parents: Block = { x0: block.x0 >> shift, x1: block.x1 >> shift, y0: block.y0 >> shift, y1: block.y1 >> shift };
    const dense = this.dense.all(clientId, level - PARENT_UP, rowsOf(parents), parents.x0, parents.x1);
    const denseByRow = new Map<number, number[]>();
    for (const d of dense) {
      const row = denseByRow.get(d.cy);
      if (row) row.push(d.cx);
      else denseByRow.set(d.cy, [d.cx]);
    }
    const scale = 2 ** level;
    const walk = (x0: number, x1: number, y0: number, y1: number): void => {
      const part: Block = { x0: Math.max(block.x0, x0 << shift), x1: Math.min(block.x1, ((x1 + 1) << shift) - 1), y0: Math.max(block.y0, y0 << shift), y1: Math.min(block.y1, ((y1 + 1) << shift) - 1) };
      found.push(...this.store.cellsInBlock(clientId, scale, blockBox(part, scale), part));
    };
    // Rows of parents with no dense one are walked together; in a row with some, the runs between them.
    let top = parents.y0;
    for (const py of [...denseByRow.keys()].sort((a, b) => a - b)) {
      if (py > top) walk(parents.x0, parents.x1, top, py - 1);
      let from = parents.x0;
      for (const px of denseByRow.get(py)!.sort((a, b) => a - b)) {
        if (px > from) walk(from, px - 1, py, py);
        from = px + 1;
      }
      if (from <= parents.x1) walk(from, parents.x1, py, py);
      top = py + 1;
    }
    if (top <= parents.y1) walk(parents.x0, parents.x1, top, parents.y1);
    return found;
  }
}
