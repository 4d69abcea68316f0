import type { Migration } from '../migration.js';

/*
 * The grid's cell formulas as this migration wrote them into `map_cells` and its triggers: a copy
 * of `sqlCellX` and `sqlCellY` of main/core/pois/grid.ts as they were, so that a later change of
 * the live grid does not change what this migration creates. The live ones compute the cells of
 * the filtered views and which cells a viewport covers, so they must agree with these
 * (test/core/frozen-migrations.test.ts): a new grid needs a migration that rebuilds `map_cells`
 * and its triggers.
 */
const MERCATOR_LAT_013 = 85.05112878;

export const sqlCellX013 = (lng: string, scale: string): string => `min(${scale} - 1, max(0, CAST(floor((${lng} + 180.0) / 360.0 * ${scale}) AS INTEGER)))`;

export const sqlCellY013 = (lat: string, scale: string): string =>
  `min(${scale} - 1, max(0, CAST(floor((0.5 - ln(tan(radians(45.0 + max(-${MERCATOR_LAT_013}, min(${MERCATOR_LAT_013}, ${lat})) / 2.0))) / (2.0 * pi())) * ${scale}) AS INTEGER)))`;

/** Every other zoom: a map at zoom z reads level z + 2 (64 px cells) or z + 1 (128 px). */
const LEVELS = [2, 4, 6, 8, 10, 12, 14, 16, 18];

/** The cells a POI row is counted in, one per level, as (client, level, cy, cx). */
const cellsOf = (row: 'NEW' | 'OLD'): string =>
  `SELECT c.rowid, l.level, ${sqlCellY013(`${row}.lat`, 'l.scale')}, ${sqlCellX013(`${row}.lng`, 'l.scale')} FROM clients c, map_levels l WHERE c.id = ${row}.client_id`;

const countIn = `INSERT INTO map_cells (client, level, cy, cx, n, sum_lat, sum_lng, sum_id)
    SELECT c.rowid, l.level, ${sqlCellY013('NEW.lat', 'l.scale')}, ${sqlCellX013('NEW.lng', 'l.scale')}, 1, NEW.lat, NEW.lng, NEW.id
    FROM clients c, map_levels l WHERE c.id = NEW.client_id
    ON CONFLICT DO UPDATE SET n = n + 1, sum_lat = sum_lat + excluded.sum_lat, sum_lng = sum_lng + excluded.sum_lng, sum_id = sum_id + excluded.sum_id;`;

const countOut = `UPDATE map_cells SET n = n - 1, sum_lat = sum_lat - OLD.lat, sum_lng = sum_lng - OLD.lng, sum_id = sum_id - OLD.id
    WHERE (client, level, cy, cx) IN (${cellsOf('OLD')});
  DELETE FROM map_cells WHERE n = 0 AND (client, level, cy, cx) IN (${cellsOf('OLD')});`;

/**
 * The map's clusters, kept by the database with every POI write: for each client and level of a
 * Web Mercator grid (the formulas above), each non-empty cell's count, the sums of its POIs'
 * positions (the cluster is drawn at their mean) and the sum of their ids (the POI itself when
 * the count is 1). A map view reads the cells it covers, at most a few thousand rows, so it
 * costs what the viewport shows, not what the client owns, and a write costs nine small upserts
 * instead of a rebuild of an index of every POI. Triggers, as for the R*Tree: whoever writes
 * (an import, an undo, a sync, another process on the file) keeps the cells true in the same
 * transaction. Not logged: derived data.
 */
export const migration013: Migration = {
  version: 13,
  name: 'map grid',
  up(db) {
    db.exec(`
      CREATE TABLE map_levels (level INTEGER PRIMARY KEY, scale INTEGER NOT NULL) STRICT;
      INSERT INTO map_levels VALUES ${LEVELS.map((l) => `(${l}, ${2 ** l})`).join(', ')};
      CREATE TABLE map_cells (
        client INTEGER NOT NULL,
        level INTEGER NOT NULL,
        cy INTEGER NOT NULL,
        cx INTEGER NOT NULL,
        n INTEGER NOT NULL,
        sum_lat REAL NOT NULL,
        sum_lng REAL NOT NULL,
        sum_id INTEGER NOT NULL,
        PRIMARY KEY (client, level, cy, cx)
      ) WITHOUT ROWID, STRICT;
      INSERT INTO map_cells
        SELECT c.rowid, l.level, ${sqlCellY013('p.lat', 'l.scale')} AS cy, ${sqlCellX013('p.lng', 'l.scale')} AS cx, count(*), sum(p.lat), sum(p.lng), sum(p.id)
        FROM pois p JOIN clients c ON c.id = p.client_id, map_levels l
        GROUP BY c.rowid, l.level, cy, cx;
      CREATE TRIGGER pois_cells_insert AFTER INSERT ON pois BEGIN
        ${countIn}
      END;
      CREATE TRIGGER pois_cells_move AFTER UPDATE OF lat, lng ON pois WHEN OLD.lat IS NOT NEW.lat OR OLD.lng IS NOT NEW.lng BEGIN
        ${countOut}
        ${countIn}
      END;
      CREATE TRIGGER pois_cells_delete AFTER DELETE ON pois BEGIN
        ${countOut}
      END;
    `);
  },
};
