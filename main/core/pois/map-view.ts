import type { Database } from 'better-sqlite3';
import { MAX_VIEW_POINTS, type MapPoint, type MapView } from '../../../shared/contract.js';
import { splitViewport, type Box } from './geo.js';
import { cellX, cellY } from './grid.js';
import { GridCells } from './grid-cells.js';
import type { Cell, MapFilter, PoiStore } from './poi-store.js';
import { scanInSlices, type Slicing } from './sliced-scan.js';

/** From this zoom on, a view with few enough POIs shows every one on its own. */
const INDIVIDUAL_ZOOM = 17;
/** Cells of level zoom + 2 are 64 px wide on the map: about a cluster marker and its margin. */
const CELL_LEVELS_ABOVE_ZOOM = 2;
/** The deepest zoom a cluster's click leads to (the map's own maximum is lower). */
const MAX_EXPAND_ZOOM = 22;
/**
 * Past INDIVIDUAL_ZOOM, a view denser than MAX_VIEW_POINTS is counted on a finer grid than the
 * stored one by walking the R*Tree's entries in it; above this many entries (a pile of POIs at one
 * spot) the finest stored level answers instead, so a view never walks more than this.
 */
const WALK_AT_MOST = 100_000;

export interface MapQuery extends Box {
  zoom: number;
  q?: string | undefined;
  categories?: number[] | undefined;
}

interface Span {
  box: Box;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** A viewport's boxes (split at the antimeridian) and the cells of a level that each covers. */
function spans(boxes: readonly Box[], level: number): Span[] {
  const scale = 2 ** level;
  return boxes.map((box) => ({ box, x0: cellX(box.west, scale), x1: cellX(box.east, scale), y0: cellY(box.north, scale), y1: cellY(box.south, scale) }));
}

type Found = Array<{ span: Span; cells: Cell[] }>;

/**
 * What one snapshot of the database answers: the view, or, for a text search over a view of more
 * POIs than two slices, the cells to count in slices of ids (sliced-scan.ts).
 */
type Plan = { view: MapView } | { sliced: { filter: MapFilter; level: number; spans: Span[] } };

/** Adds a slice's count of one cell to what the slices before it counted. */
function merge(into: Map<string, Cell>, cell: Cell): void {
  const key = `${cell.cy}/${cell.cx}`;
  const known = into.get(key);
  if (!known) into.set(key, { ...cell });
  else {
    known.n += cell.n;
    known.sum_lat += cell.sum_lat;
    known.sum_lng += cell.sum_lng;
    known.sum_id += cell.sum_id;
  }
}

const cellCount = (s: readonly Span[]): number => s.reduce((n, { x0, x1, y0, y1 }) => n + (x1 - x0 + 1) * (y1 - y0 + 1), 0);

/** The finest of these levels, at most `finest`, whose cells in the view are at most MAX_VIEW_POINTS. */
function levelFor(levels: readonly number[], finest: number, boxes: readonly Box[]): number {
  const fitting = levels.filter((l) => l <= finest && cellCount(spans(boxes, l)) <= MAX_VIEW_POINTS);
  return fitting.length > 0 ? Math.max(...fitting) : Math.min(...levels);
}

/**
 * A map view: its POIs as clusters and single points, never more than MAX_VIEW_POINTS, at a cost
 * that follows the viewport, not the client's size. Unfiltered, it reads the grid cells that the
 * database keeps with every write (migration 013): no index to build at start or after a write,
 * and what another process writes is there at once. Filtered (search, categories), it counts the
 * matches per cell of the same grid in one SQL aggregate (a text search over a big view in
 * slices of ids). Past INDIVIDUAL_ZOOM, each POI is its own point unless the view holds more than
 * a page can draw.
 */
export class MapViews {
  private readonly grid: GridCells;
  private readonly levels: number[];
  private readonly snapshot: (work: () => Plan) => Plan;

  constructor(
    db: Database,
    private readonly store: PoiStore,
    private readonly slicing: Slicing,
  ) {
    this.grid = new GridCells(db, store);
    this.levels = db.prepare<[], number>('SELECT level FROM map_levels ORDER BY level').pluck().all();
    // One read transaction: the cells and the names of single POIs from the same snapshot.
    this.snapshot = db.transaction((work: () => Plan) => work());
  }

  async view(clientId: string, query: MapQuery): Promise<MapView> {
    // In the heavy lane: a view may walk a few thousand R*Tree entries (grid-cells.ts), so the
    // plain requests that arrived meanwhile are answered first, as for a near query.
    const plan = await this.slicing.lane.run(() => this.snapshot(() => this.plan(clientId, query)));
    if ('view' in plan) return plan.view;
    // A text search no index narrows, over a big view: every POI of the client is read, so in
    // slices, giving other requests their turn between two (as a text search list does).
    const { filter, level, spans } = plan.sliced;
    const merged = spans.map(() => new Map<string, Cell>());
    await scanInSlices(this.store.idSpan(clientId), this.slicing, (slice) => {
      spans.forEach((span, i) => {
        for (const cell of this.store.cellsWhere(clientId, filter, 2 ** level, span.box, false, slice)) merge(merged[i]!, cell);
      });
      return false;
    });
    return this.points(clientId, query, spans.map((span, i) => ({ span, cells: [...merged[i]!.values()] })));
  }

  private plan(clientId: string, query: MapQuery): Plan {
    const filter: MapFilter = { q: query.q?.trim() || undefined, categories: query.categories?.length ? query.categories : undefined };
    const filtered = filter.q !== undefined || filter.categories !== undefined;
    const boxes = splitViewport(query);
    const entries = (upTo: number): number => boxes.reduce((n, box) => n + this.store.entriesIn(clientId, box, upTo), 0);

    if (query.zoom >= INDIVIDUAL_ZOOM && entries(MAX_VIEW_POINTS + 1) <= MAX_VIEW_POINTS) {
      const points = boxes.flatMap((box) => this.store.markersWhere(clientId, filter, box, MAX_VIEW_POINTS));
      return { view: { points: points.map((m) => ({ lat: m.lat, lng: m.lng, count: 1, poi: m.id, name: m.name })), total: points.length } };
    }
    const finest = query.zoom + CELL_LEVELS_ABOVE_ZOOM;
    let cells: Found;
    if (query.zoom >= INDIVIDUAL_ZOOM && entries(WALK_AT_MOST + 1) <= WALK_AT_MOST) {
      // Finer than any stored level: counted from the R*Tree's entries in the view.
      const level = levelFor(Array.from({ length: finest + 1 }, (_, l) => l), finest, boxes);
      cells = spans(boxes, level).map((span) => ({ span, cells: this.store.cellsWhere(clientId, filter, 2 ** level, span.box, true) }));
    } else if (filtered) {
      const level = levelFor(this.levels, finest, boxes);
      // Below two slices' worth of the R*Tree's entries in the view, walking them costs less
      // than the filter's matches and holds the service for at most that; above, the matches.
      const viaTreeBelow = 2 * this.slicing.size;
      const viaTree = entries(viaTreeBelow) < viaTreeBelow;
      if (!viaTree && filter.q !== undefined) return { sliced: { filter, level, spans: spans(boxes, level) } };
      cells = spans(boxes, level).map((span) => ({ span, cells: this.store.cellsWhere(clientId, filter, 2 ** level, span.box, viaTree) }));
    } else {
      const level = levelFor(this.levels, finest, boxes);
      cells = spans(boxes, level).map((span) => ({ span, cells: this.grid.cells(clientId, level, span) }));
    }
    return { view: this.points(clientId, query, cells) };
  }

  /** Cells as points: a cluster at its POIs' mean position, or the one POI it holds; only those inside the view. */
  private points(clientId: string, query: MapQuery, found: Found): MapView {
    const points: MapPoint[] = [];
    const singles: MapPoint[] = [];
    let total = 0;
    for (const { span, cells } of found) {
      const { south, north, west, east } = span.box;
      for (const c of cells) {
        const lat = c.sum_lat / c.n;
        const lng = c.sum_lng / c.n;
        if (lat < south || lat > north || lng < west || lng > east) continue;
        total += c.n;
        if (c.n === 1) singles.push({ lat, lng, count: 1, poi: c.sum_id });
        else points.push({ lat, lng, count: c.n, expandZoom: Math.min(query.zoom + CELL_LEVELS_ABOVE_ZOOM, MAX_EXPAND_ZOOM) });
      }
    }
    const names = this.store.names(clientId, singles.map((p) => p.poi!));
    for (const p of singles) points.push({ ...p, name: names.get(p.poi!) ?? '' });
    return { points, total };
  }
}
