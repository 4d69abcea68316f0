import type { Migration } from '../migration.js';
import { sqlCellX013 as cellX, sqlCellY013 as cellY } from './013-map-grid.js';

/**
 * A cell of the map's grid whose count passes this gets the cells of the level two below it
 * stored (it becomes "dense"); under a cell that never did, they are counted from the R*Tree when
 * a view asks, at most this many POIs per such cell (main/core/pois/map-view.ts).
 */
export const DENSE_ABOVE_017 = 256;

/** The grid's levels (migration 013): every other zoom. */
const FIRST = 2;
const LAST = 18;

/** The latitude of the top edge of cell row `cy` of a grid of `scale` rows (the inverse of cellY). */
const northOf = (cy: string, scale: string): string => `CASE WHEN ${cy} <= 0 THEN 90.0 ELSE degrees(atan(sinh(pi() * (1.0 - 2.0 * ${cy} / ${scale})))) END`;
const southOf = (cy: string, scale: string): string => `CASE WHEN ${cy} >= ${scale} - 1 THEN -90.0 ELSE degrees(atan(sinh(pi() * (1.0 - 2.0 * (${cy} + 1) / ${scale})))) END`;
/** R*Tree entries are 32-bit floats rounded outwards; this margin also covers the inverse's rounding. */
const MARGIN = 1e-6;

/**
 * The POIs of client `client` inside cell (cy, cx) at scale `scale` (SQL expressions), exactly:
 * the R*Tree's entries in the cell's box, then each POI's own cell, by the same formula as the
 * grid's. Used at the moment a cell becomes dense, so it costs DENSE_ABOVE_017 + 1 rows.
 */
const poisInCell = (client: string, scale: string, cy: string, cx: string): string => `
  pois_rtree r JOIN pois p ON p.id = r.id
  WHERE r.min_client <= ${client} AND r.max_client >= ${client}
    AND r.max_lat >= ${southOf(cy, scale)} - ${MARGIN} AND r.min_lat <= ${northOf(cy, scale)} + ${MARGIN}
    AND r.max_lng >= ${cx} * 360.0 / ${scale} - 180.0 - ${MARGIN} AND r.min_lng <= (${cx} + 1) * 360.0 / ${scale} - 180.0 + ${MARGIN}
    AND ${cellY('p.lat', scale)} = ${cy} AND ${cellX('p.lng', scale)} = ${cx}`;

/**
 * The cells of level `level` + 2 for the POIs of one cell at `level`, as rows for map_cells;
 * `from` and `where` name a table the cell's columns come from (SQLite has no lateral subqueries).
 */
const childrenOf = (client: string, level: string, cy: string, cx: string, from = '', where = 'TRUE'): string => `
  SELECT ${client}, ${level} + 2, ${cellY('p.lat', `(1 << (${level} + 2))`)} AS ccy, ${cellX('p.lng', `(1 << (${level} + 2))`)} AS ccx, count(*), sum(p.lat), sum(p.lng), sum(p.id)
  FROM ${from}${poisInCell(client, `(1 << ${level})`, cy, cx)} AND ${where}
  GROUP BY ccy, ccx`;

/**
 * What a cell's crossing does, at depth `k` below the crossing cell NEW: the one cell of level
 * NEW.level + 2k under NEW that holds more than DENSE_ABOVE_017 (if any: the crossing cell holds
 * DENSE_ABOVE_017 + 1, so only a cell holding all of them can) becomes dense too, and gets its
 * children. Written out per depth: a trigger's insert does not fire the trigger again.
 */
const chainAt = (k: number): string => {
  const level = `NEW.level + ${2 * k}`;
  const shift = 2 * k;
  const under = (t: string): string =>
    `${t}.client = NEW.client AND ${t}.level = ${level} AND ${t}.cy BETWEEN NEW.cy << ${shift} AND ((NEW.cy + 1) << ${shift}) - 1 AND ${t}.cx BETWEEN NEW.cx << ${shift} AND ((NEW.cx + 1) << ${shift}) - 1`;
  return `
    INSERT INTO map_dense SELECT m.client, m.level, m.cy, m.cx FROM map_cells m WHERE ${under('m')} AND m.n > ${DENSE_ABOVE_017} AND ${level} < ${LAST};
    INSERT INTO map_cells ${childrenOf('NEW.client', level, 'd.cy', 'd.cx', 'map_dense d, ', under('d'))};`;
};

/** The cells a POI row is in, one per level, as (client, level, cy, cx), for those levels where they are stored. */
const storedCellsOf = (row: 'NEW' | 'OLD'): string => `SELECT c.rowid, l.level, ${cellY(`${row}.lat`, 'l.scale')}, ${cellX(`${row}.lng`, 'l.scale')} FROM clients c, map_levels l WHERE c.id = ${row}.client_id`;

/**
 * NEW counted in its cell of every level where that cell is stored: level 2 always, a finer level
 * where the cell two levels up is dense. Finest first: a cell that becomes dense by this count
 * (map_cells_dense) gets its children from the POIs, NEW among them, so NEW must not be counted
 * again in a level below it afterwards.
 */
const countIn = `INSERT INTO map_cells (client, level, cy, cx, n, sum_lat, sum_lng, sum_id)
    SELECT c.rowid, l.level, ${cellY('NEW.lat', 'l.scale')}, ${cellX('NEW.lng', 'l.scale')}, 1, NEW.lat, NEW.lng, NEW.id
    FROM clients c, map_levels l
    WHERE c.id = NEW.client_id AND (l.level = ${FIRST} OR EXISTS (
      SELECT 1 FROM map_dense d WHERE d.client = c.rowid AND d.level = l.level - 2 AND d.cy = ${cellY('NEW.lat', 'l.scale / 4')} AND d.cx = ${cellX('NEW.lng', 'l.scale / 4')}))
    ORDER BY l.level DESC
    ON CONFLICT DO UPDATE SET n = n + 1, sum_lat = sum_lat + excluded.sum_lat, sum_lng = sum_lng + excluded.sum_lng, sum_id = sum_id + excluded.sum_id;`;

/** OLD taken out of the cells it was counted in (a cell not stored has no row to update). */
const countOut = `UPDATE map_cells SET n = n - 1, sum_lat = sum_lat - OLD.lat, sum_lng = sum_lng - OLD.lng, sum_id = sum_id - OLD.id
    WHERE (client, level, cy, cx) IN (${storedCellsOf('OLD')});
  DELETE FROM map_cells WHERE n = 0 AND (client, level, cy, cx) IN (${storedCellsOf('OLD')});`;

const rtreeIn = 'INSERT INTO pois_rtree SELECT NEW.id, NEW.lat, NEW.lat, NEW.lng, NEW.lng, c.rowid - 0.25, c.rowid + 0.25 FROM clients c WHERE c.id = NEW.client_id;';

/**
 * The map's grid stored where it is dense (migration 013 stored every level for every POI).
 *
 * Why: nine cell upserts per POI were most of the cost of a write (add.json, an import, a sync
 * pull; docs/performance.md), and at the finer levels nearly every cell holds one POI, which the
 * R*Tree already indexes. Now level 2 is stored for every POI, and a cell of a finer level only
 * where its parent two levels up holds, or once held, more than DENSE_ABOVE_017 POIs (a row in
 * `map_dense`). A map view reads the stored cells under dense parents and counts the rest from the
 * R*Tree: at most DENSE_ABOVE_017 POIs per parent cell in view, so a view still costs what the
 * viewport shows, however many POIs the client has (main/core/pois/map-view.ts).
 *
 * A cell becomes dense in the transaction of the write that pushes it past the threshold
 * (`map_cells_dense`): its children are counted from the R*Tree then, once. A dense cell stays
 * dense when POIs leave it, which only means more is stored than needed.
 *
 * The R*Tree's triggers are folded into the grid's, ahead of it: a cell that becomes dense reads
 * the R*Tree, which must already hold the POI being written (SQLite does not promise an order
 * between two triggers of one event).
 */
export const migration017: Migration = {
  version: 17,
  name: 'map grid where dense',
  up(db) {
    db.exec(`
      DROP TRIGGER pois_cells_insert;
      DROP TRIGGER pois_cells_move;
      DROP TRIGGER pois_cells_delete;
      DROP TRIGGER pois_rtree_insert;
      DROP TRIGGER pois_rtree_move;
      DROP TRIGGER pois_rtree_delete;
      CREATE TABLE map_dense (
        client INTEGER NOT NULL,
        level INTEGER NOT NULL,
        cy INTEGER NOT NULL,
        cx INTEGER NOT NULL,
        PRIMARY KEY (client, level, cy, cx)
      ) WITHOUT ROWID, STRICT;
    `);
    // What was stored at every level is thinned to what the rule above stores: the dense cells,
    // level by level from the top, then every finer cell without a dense parent goes.
    const markDense = db.prepare(
      `INSERT INTO map_dense SELECT m.client, m.level, m.cy, m.cx FROM map_cells m
       WHERE m.level = ? AND m.n > ${DENSE_ABOVE_017} AND (m.level = ${FIRST} OR EXISTS (SELECT 1 FROM map_dense d WHERE d.client = m.client AND d.level = m.level - 2 AND d.cy = m.cy >> 2 AND d.cx = m.cx >> 2))`,
    );
    for (let level = FIRST; level < LAST; level += 2) markDense.run(level);
    db.exec(`
      DELETE FROM map_cells WHERE level > ${FIRST} AND NOT EXISTS (
        SELECT 1 FROM map_dense d WHERE d.client = map_cells.client AND d.level = map_cells.level - 2 AND d.cy = map_cells.cy >> 2 AND d.cx = map_cells.cx >> 2);
      CREATE TRIGGER map_cells_dense AFTER UPDATE OF n ON map_cells
      WHEN NEW.n = ${DENSE_ABOVE_017 + 1} AND OLD.n = ${DENSE_ABOVE_017} AND NEW.level < ${LAST}
        AND NOT EXISTS (SELECT 1 FROM map_dense WHERE client = NEW.client AND level = NEW.level AND cy = NEW.cy AND cx = NEW.cx)
      BEGIN
        INSERT INTO map_dense VALUES (NEW.client, NEW.level, NEW.cy, NEW.cx);
        INSERT INTO map_cells ${childrenOf('NEW.client', 'NEW.level', 'NEW.cy', 'NEW.cx')};
        ${Array.from({ length: (LAST - FIRST) / 2 - 1 }, (_, i) => chainAt(i + 1)).join('\n')}
      END;
      CREATE TRIGGER pois_place_insert AFTER INSERT ON pois BEGIN
        ${rtreeIn}
        ${countIn}
      END;
      CREATE TRIGGER pois_place_move AFTER UPDATE OF lat, lng ON pois WHEN OLD.lat IS NOT NEW.lat OR OLD.lng IS NOT NEW.lng BEGIN
        UPDATE pois_rtree SET min_lat = NEW.lat, max_lat = NEW.lat, min_lng = NEW.lng, max_lng = NEW.lng WHERE id = NEW.id;
        ${countOut}
        ${countIn}
      END;
      CREATE TRIGGER pois_place_delete AFTER DELETE ON pois BEGIN
        DELETE FROM pois_rtree WHERE id = OLD.id;
        ${countOut}
      END;
    `);
  },
};
