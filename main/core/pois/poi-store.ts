import type { Database, Statement } from 'better-sqlite3';
import { FOLDED_COLUMNS, POI_FIELDS } from '../../../shared/poi-fields.js';
import { foldText } from '../../../shared/text-fold.js';
import type { Box } from './geo.js';
import { sqlCellX, sqlCellY } from './grid.js';
import { POI_COLUMNS, poiRowOf, type PoiRow } from './poi-row.js';

export interface WhereFilter {
  categories?: number[] | undefined;
  pois?: number[] | undefined;
  city?: string | undefined;
  country?: string | undefined;
  postal_code?: string | undefined;
  q?: string | undefined;
  limit: number;
  /** Only POIs with a higher id (a page after the one that ended with this id). */
  after?: number | undefined;
  /** Only POIs with this id or a lower one (one slice of a long scan). */
  through?: number | undefined;
}

/** A range of ids: those above `after`, up to `through` included. */
export interface IdSlice {
  after: number;
  through: number;
}

/**
 * A POI as the R*Tree holds it: a box around its position, in 32-bit floats rounded outwards
 * (SQLite's R*Tree), so that the true position is inside it and it is at most a metre or two wide.
 */
export interface TreeEntry extends Box {
  id: number;
}

/** A tree entry as its statement reads it, raw: id, south, north, west, east. */
type TreeRow = [number, number, number, number, number];
const treeEntry = ([id, south, north, west, east]: TreeRow): TreeEntry => ({ id, south, north, west, east });

export interface Position {
  id: number;
  lat: number;
  lng: number;
}

/** A POI as the map needs it: enough to place and label a marker. */
export interface Marker {
  id: number;
  lat: number;
  lng: number;
  name: string;
}

/** What a map view can be narrowed to. */
export type MapFilter = Pick<WhereFilter, 'q' | 'categories'>;

/** One cell of the map's grid (grid.ts): how many POIs, the sums of their positions and of their ids. */
export interface Cell {
  cy: number;
  cx: number;
  n: number;
  sum_lat: number;
  sum_lng: number;
  sum_id: number;
}

/**
 * The client's key in the R*Tree and the map's cells: its rowid (migrations 006 and 013), looked
 * up by each statement rather than kept: another process's restore may bring a file whose
 * clients have other rowids, and nothing would tell this one to forget them. The lookup is one
 * seek in the clients' key, and SQLite still gives the R*Tree the value as a constraint.
 */
export const CLIENT_KEY = '(SELECT rowid FROM clients WHERE id = ?)';
/** Overlap tests: the R*Tree rounds its float32 boxes outwards; callers filter exactly. */
const IN_TREE = `r.max_lat >= ? AND r.min_lat <= ? AND r.max_lng >= ? AND r.min_lng <= ? AND r.min_client <= ${CLIENT_KEY} AND r.max_client >= ${CLIENT_KEY}`;
const IN_BOX = 'lat BETWEEN ? AND ? AND lng BETWEEN ? AND ?';
const boxArgs = (box: Box): number[] => [box.south, box.north, box.west, box.east];

/** The SQL and arguments that keep ids above `after` and up to `through`, each where given. */
function idRange({ after, through }: { after?: number | undefined; through?: number | undefined }): { sql: string; args: number[] } {
  const sql = (after !== undefined ? ' AND id > ?' : '') + (through !== undefined ? ' AND id <= ?' : '');
  return { sql, args: [after, through].filter((v) => v !== undefined) };
}
/**
 * The POIs of the R*Tree's entries in a box, driven from the tree (CROSS JOIN keeps that order):
 * a filter's `id IN (...)` is then a lookup per entry, not a loop over its matches per entry.
 */
const TREE_THEN_POIS = `(SELECT r.id AS tree_id FROM pois_rtree r WHERE ${IN_TREE}) t CROSS JOIN pois ON pois.id = t.tree_id`;

/** Each folded column with the name of its copy, named once rather than per row. */
const FOLDED_KEYS = FOLDED_COLUMNS.map((column) => [column, `${column}_key`] as const);

/** The folded copies of the matched columns (`name_key`...; migration 004), written with every row (and by the benches' raw inserts). */
export const textKeys = (row: PoiRow | Omit<PoiRow, 'id'>): Record<string, string | null> => {
  const keys: Record<string, string | null> = {};
  for (const [column, key] of FOLDED_KEYS) {
    const value = row[column];
    keys[key] = typeof value === 'string' ? foldText(value) : null;
  }
  return keys;
};

const FIELD_COLUMNS = POI_FIELDS.map((f) => f.column);
const KEY_COLUMNS = FOLDED_KEYS.map(([, key]) => key);
/** The columns a new POI is written with (an import's, a pull's, a bench's raw insert). */
export const INSERTED = ['uuid', 'client_id', ...FIELD_COLUMNS, 'category_ids', 'created_by', 'registered_at', 'updated_at', ...KEY_COLUMNS];
const RESTORED = ['id', ...INSERTED];
const UPDATED = [...FIELD_COLUMNS, 'category_ids', 'updated_at', ...KEY_COLUMNS];

/** SQL for POIs, every statement prepared once (the `where` shapes once per shape). */
export class PoiStore {
  private readonly insertStmt: Statement;
  private readonly restoreStmt: Statement;
  private readonly updateStmt: Statement;
  private readonly getStmt: Statement<[string, number], unknown[]>;
  private readonly deleteStmt: Statement;
  /** Positions in a box: [all, first by id] x [any category, some categories]. */
  private readonly inBox: Record<'all' | 'firstById', Record<'any' | 'some', Statement<unknown[], TreeRow>>>;
  private readonly positionsOf: Statement<[string, string], [number, number, number]>;
  private readonly entries: Statement<unknown[], number>;
  private readonly span: Statement<[{ client: string }], { first: number | null; last: number | null }>;
  private readonly linksTo: Statement<[string, number], number>;
  private readonly withCategories: Statement<[string, string], Position>;
  private readonly byIds: Statement<[string, string], unknown[]>;
  private readonly namesOf: Statement<[string, string], { id: number; name: string }>;
  private readonly markersInBox: Statement<unknown[], Marker>;
  private readonly namedInBox: Statement<unknown[], Marker>;
  private readonly whereCache = new Map<string, Statement>();

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare(`INSERT INTO pois (${INSERTED.join(', ')}) VALUES (${INSERTED.map((c) => `@${c}`).join(', ')})`);
    this.restoreStmt = db.prepare(`INSERT INTO pois (${RESTORED.join(', ')}) VALUES (${RESTORED.map((c) => `@${c}`).join(', ')})`);
    this.updateStmt = db.prepare(`UPDATE pois SET ${UPDATED.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id AND client_id = @client_id`);
    // Rows are read raw and built by poiRowOf (poi-row.ts), at half the cost.
    this.getStmt = db.prepare<[string, number], unknown[]>(`SELECT ${POI_COLUMNS} FROM pois WHERE client_id = ? AND id = ?`).raw();
    this.deleteStmt = db.prepare('DELETE FROM pois WHERE client_id = ? AND id = ?');
    // The client is the R*Tree's third dimension (migration 006), so only its entries are walked.
    // The tree's own boxes only: a near query ranks many candidates by them and reads the exact
    // positions of the few that may be kept (nearest.ts), a page of `pois` each where it is not cached.
    const box = `SELECT r.id, r.min_lat AS south, r.max_lat AS north, r.min_lng AS west, r.max_lng AS east FROM pois_rtree r WHERE ${IN_TREE}`;
    const someCategories = 'AND EXISTS (SELECT 1 FROM poi_categories pc WHERE pc.poi_id = r.id AND pc.category_id IN (SELECT value FROM json_each(?)))';
    // Raw, as rows are (poi-row.ts): a search reads hundreds of entries.
    const raw = (sql: string): Statement<unknown[], TreeRow> => db.prepare<unknown[], TreeRow>(sql).raw();
    this.inBox = {
      all: { any: raw(box), some: raw(`${box} ${someCategories}`) },
      firstById: { any: raw(`${box} ORDER BY r.id LIMIT ?`), some: raw(`${box} ${someCategories} ORDER BY r.id LIMIT ?`) },
    };
    // By rowid (the unary + keeps SQLite from going through the client's index, a second lookup per id).
    this.positionsOf = db
      .prepare<[string, string], [number, number, number]>('SELECT id, lat, lng FROM pois WHERE +client_id = ? AND id IN (SELECT value FROM json_each(?))')
      .raw();
    this.entries = db
      .prepare<unknown[], number>(
        `SELECT count(*) FROM (SELECT 1 FROM pois_rtree r WHERE ${IN_TREE} LIMIT ?)`,
      )
      .pluck();
    // Two subqueries: each of min() and max() alone is one seek in pois_by_client; together, a scan.
    this.span = db.prepare('SELECT (SELECT min(id) FROM pois WHERE client_id = @client) AS first, (SELECT max(id) FROM pois WHERE client_id = @client) AS last');
    this.linksTo = db
      .prepare<[string, number], number>(
        'SELECT count(*) FROM (SELECT 1 FROM poi_categories WHERE category_id IN (SELECT value FROM json_each(?)) LIMIT ?)',
      )
      .pluck();
    this.withCategories = db.prepare(
      `SELECT DISTINCT p.id, p.lat, p.lng FROM poi_categories pc CROSS JOIN pois p ON p.id = pc.poi_id
       WHERE pc.category_id IN (SELECT value FROM json_each(?)) AND p.client_id = ?`,
    );
    // By rowid, as positionsOf: through the client's index, each id would be a page of that index too.
    this.byIds = db.prepare<[string, string], unknown[]>(`SELECT ${POI_COLUMNS} FROM pois WHERE +client_id = ? AND id IN (SELECT value FROM json_each(?))`).raw();
    // Driven from the list of ids (CROSS JOIN), each a primary-key lookup.
    this.namesOf = db.prepare('SELECT p.id, p.name FROM json_each(?) j CROSS JOIN pois p ON p.id = j.value WHERE p.client_id = ?');
    this.markersInBox = db.prepare(
      `SELECT p.id, p.lat, p.lng, p.name FROM pois_rtree r CROSS JOIN pois p ON p.id = r.id
       WHERE ${IN_TREE} AND p.client_id = ? AND p.lat BETWEEN ? AND ? AND p.lng BETWEEN ? AND ? LIMIT ?`,
    );
    this.namedInBox = db.prepare(
      `SELECT id, lat, lng, name FROM pois INDEXED BY pois_by_name_key
       WHERE client_id = ? AND name_key = ? AND lat BETWEEN ? AND ? AND lng BETWEEN ? AND ? LIMIT ?`,
    );
  }

  /** The links that category filters search follow the row's `category_ids`, by the database's triggers (migration 008). */
  insert(row: Omit<PoiRow, 'id'>): number {
    return Number(this.insertStmt.run({ ...row, ...textKeys(row) }).lastInsertRowid);
  }

  /** A deleted POI back under its own id and uuid (undo; ids are never reused, so it is free). */
  restore(row: PoiRow): void {
    this.restoreStmt.run({ ...row, ...textKeys(row) });
  }

  update(row: PoiRow): void {
    this.updateStmt.run({ ...row, ...textKeys(row) });
  }

  get(clientId: string, id: number): PoiRow | undefined {
    const values = this.getStmt.get(clientId, id);
    return values && poiRowOf(values);
  }

  delete(clientId: string, id: number): boolean {
    return this.deleteStmt.run(clientId, id).changes > 0;
  }

  /** The rows of these POIs of the client, in the order of `ids`. */
  rows(clientId: string, ids: readonly number[]): PoiRow[] {
    if (ids.length === 0) return [];
    const byId = new Map(this.byIds.all(clientId, JSON.stringify(ids)).map((values) => {
      const row = poiRowOf(values);
      return [row.id, row];
    }));
    return ids.map((id) => byId.get(id)).filter((r): r is PoiRow => r !== undefined);
  }

  /** The names of these POIs of the client, by id: what the duplicate check compares, without whole rows. */
  names(clientId: string, ids: readonly number[]): Map<number, string> {
    if (ids.length === 0) return new Map();
    return new Map(this.namesOf.all(JSON.stringify(ids), clientId).map((r) => [r.id, r.name]));
  }

  private treeArgs(clientId: string, box: Box): unknown[] {
    return [box.south, box.north, box.west, box.east, clientId, clientId];
  }

  /**
   * The R*Tree's entries of the client's POIs in a box (a superset of those strictly inside it),
   * with one of the categories when given; with `firstById`, only the `firstById` lowest ids.
   */
  treeEntries(clientId: string, box: Box, categoryIds?: readonly number[], firstById?: number): TreeEntry[] {
    const args = this.treeArgs(clientId, box);
    if (categoryIds && categoryIds.length > 0) args.push(JSON.stringify(categoryIds));
    if (firstById !== undefined) args.push(firstById);
    return this.inBox[firstById === undefined ? 'all' : 'firstById'][categoryIds?.length ? 'some' : 'any'].all(...args).map(treeEntry);
  }

  /** The exact positions of those of these POIs that are the client's. */
  positions(clientId: string, ids: readonly number[]): Position[] {
    return ids.length === 0 ? [] : this.positionsOf.all(clientId, JSON.stringify(ids)).map(([id, lat, lng]) => ({ id, lat, lng }));
  }

  /** How many POIs (of every client) have one of these categories, counting no further than `upTo`: cheap. */
  linksToCategories(categoryIds: readonly number[], upTo: number): number {
    return this.linksTo.get(JSON.stringify(categoryIds), upTo) ?? 0;
  }

  /** The positions of the client's POIs that have one of these categories. */
  withAnyCategory(clientId: string, categoryIds: readonly number[]): Position[] {
    return this.withCategories.all(JSON.stringify(categoryIds), clientId);
  }

  /** How many of the client's POIs lie in a box, counting no further than `upTo`: R*Tree only, cheap. */
  entriesIn(clientId: string, box: Box, upTo: number): number {
    return this.entries.get(...this.treeArgs(clientId, box), upTo) ?? 0;
  }

  markers(clientId: string, box: Box, limit: number): Marker[] {
    return this.markersInBox.all(...this.treeArgs(clientId, box), clientId, box.south, box.north, box.west, box.east, limit);
  }

  /** The same markers one at a time, for a caller that may stop at the first it wants (an import's duplicate check). */
  markersOneByOne(clientId: string, box: Box, limit: number): IterableIterator<Marker> {
    return this.markersInBox.iterate(...this.treeArgs(clientId, box), clientId, box.south, box.north, box.west, box.east, limit);
  }

  /**
   * Markers in a box whose name folds to `nameKey` (foldText): what an import's identical rows are
   * looked up by. By name first (migration 016): 3,000 rows at one point fill any capped box query.
   */
  markersNamed(clientId: string, box: Box, nameKey: string, limit: number): Marker[] {
    return this.namedInBox.all(clientId, nameKey, box.south, box.north, box.west, box.east, limit);
  }

  /**
   * Markers of the POIs in a box (west <= east) that pass the filter, at most `limit`. Driven from
   * the R*Tree: callers ask for boxes that hold few entries (a map past the clustering zooms).
   */
  markersWhere(clientId: string, filter: MapFilter, box: Box, limit: number): Marker[] {
    const { where, args } = this.clauses(clientId, filter);
    const sql = `SELECT id, lat, lng, name FROM ${TREE_THEN_POIS} WHERE ${where} AND ${IN_BOX} LIMIT ?`;
    return this.statement(sql).all(...this.treeArgs(clientId, box), ...args, ...boxArgs(box), limit) as Marker[];
  }

  /**
   * The POIs in a box (west <= east) that pass the filter, counted per cell of the map's grid at
   * this scale (grid.ts): what a filtered map view draws. `viaTree`: walk the R*Tree's entries in
   * the box (a small box) rather than the filter's matches (a big one).
   */
  cellsWhere(clientId: string, filter: MapFilter, scale: number, box: Box, viaTree: boolean, slice?: IdSlice): Cell[] {
    const { where, args } = this.clauses(clientId, filter);
    const range = idRange(slice ?? {});
    const sql = `SELECT ${sqlCellY('lat', String(scale))} AS cy, ${sqlCellX('lng', String(scale))} AS cx, count(*) AS n, sum(lat) AS sum_lat, sum(lng) AS sum_lng, sum(id) AS sum_id
      FROM ${viaTree ? TREE_THEN_POIS : 'pois'} WHERE ${where} AND ${IN_BOX}${range.sql} GROUP BY cy, cx`;
    return this.statement(sql).all(...(viaTree ? this.treeArgs(clientId, box) : []), ...args, ...boxArgs(box), ...range.args) as Cell[];
  }

  /**
   * The client's POIs in a block of cells of the grid at `scale` (grid.ts), counted per whole cell:
   * what a map view reads where the grid stores no cells (migration 017). The box is the block's,
   * `box` (a superset); each POI's own cell decides.
   */
  cellsInBlock(clientId: string, scale: number, box: Box, block: { x0: number; x1: number; y0: number; y1: number }): Cell[] {
    const sql = `SELECT cy, cx, count(*) AS n, sum(lat) AS sum_lat, sum(lng) AS sum_lng, sum(id) AS sum_id FROM (
        SELECT ${sqlCellY('lat', String(scale))} AS cy, ${sqlCellX('lng', String(scale))} AS cx, lat, lng, id FROM ${TREE_THEN_POIS}
      ) WHERE cy BETWEEN ? AND ? AND cx BETWEEN ? AND ? GROUP BY cy, cx`;
    return this.statement(sql).all(...this.treeArgs(clientId, box), block.y0, block.y1, block.x0, block.x1) as Cell[];
  }

  where(clientId: string, filter: WhereFilter): PoiRow[] {
    const { where, args } = this.clauses(clientId, filter);
    const range = idRange(filter);
    // The SQL selects whole rows, so this cached statement is only ever read raw.
    const stmt = this.statement(`SELECT ${POI_COLUMNS} FROM pois WHERE ${where}${range.sql} ORDER BY id LIMIT ?`).raw();
    return (stmt.all(...args, ...range.args, filter.limit) as unknown[][]).map(poiRowOf);
  }

  /** How many POIs pass the filter (its limit and page aside): a list says "50 of 401". */
  countWhere(clientId: string, filter: Omit<WhereFilter, 'limit' | 'after' | 'through'>, slice?: IdSlice): number {
    const { where, args } = this.clauses(clientId, filter);
    const range = idRange(slice ?? {});
    return this.statement(`SELECT count(*) AS n FROM pois WHERE ${where}${range.sql}`).pluck().get(...args, ...range.args) as number;
  }

  /** The client's lowest and highest POI id (through < after when it has none): what a sliced scan walks. */
  idSpan(clientId: string): IdSlice {
    const span = this.span.get({ client: clientId });
    return span?.first == null || span.last == null ? { after: 0, through: -1 } : { after: span.first - 1, through: span.last };
  }

  private statement(sql: string): Statement {
    let stmt = this.whereCache.get(sql);
    if (!stmt) this.whereCache.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  private clauses(clientId: string, filter: Omit<WhereFilter, 'limit' | 'after'>): { where: string; args: unknown[] } {
    const clauses = ['client_id = ?'];
    const args: unknown[] = [clientId];
    if (filter.categories?.length) {
      clauses.push('id IN (SELECT poi_id FROM poi_categories WHERE category_id IN (SELECT value FROM json_each(?)))');
      args.push(JSON.stringify(filter.categories));
    }
    if (filter.pois?.length) {
      clauses.push('id IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(filter.pois));
    }
    // Folded on both sides (shared/text-fold.ts): exact filters use their index, and q is a
    // plain substring search, so `%` and `_` are only characters.
    for (const field of ['city', 'country', 'postal_code'] as const) {
      const value = filter[field];
      if (value !== undefined) {
        clauses.push(`${field}_key = ?`);
        args.push(foldText(value));
      }
    }
    if (filter.q !== undefined) {
      clauses.push('(instr(name_key, ?) > 0 OR instr(description_key, ?) > 0)');
      const needle = foldText(filter.q);
      args.push(needle, needle);
    }
    return { where: clauses.join(' AND '), args };
  }
}
