import TinyQueue from 'tinyqueue';
import { boxesAround, EARTH_RADIUS_M, metresBetween, metresToBox, type Box } from './geo.js';
import type { PoiStore, Position, TreeEntry } from './poi-store.js';

/**
 * A box holding more of the client's R*Tree entries than this is split before its POIs are
 * read: no step of a search reads more rows, however dense the data.
 */
const ENTRIES_PER_STEP = 128;
/**
 * Categories given to at most this many POIs (of every client) may be searched through the
 * category index, when they are fewer than the POIs around the point: reading them all then
 * costs less than finding a rare category among the POIs of a dense area box by box.
 */
const CATEGORY_SCAN_MAX = 20_000;
/**
 * Boxes smaller than this (about 1 m) are not split further: their POIs are all but equidistant,
 * and the `total` of lowest id are taken (POIs stacked on one spot tie, and ties go by id).
 */
const SMALLEST_BOX_DEG = 1e-5;

interface Tile extends Box {
  /** The least distance from the query point to any point of the tile. */
  reach: number;
}

interface Found<P> {
  poi: P;
  d: number;
}

/** A POI that may be among the nearest: the least distance its tree box allows. */
interface Candidate {
  id: number;
  low: number;
}

/** Metres of rounding allowed for in the bounds of a distance. */
const SLACK_M = 1e-3;
const METRES_PER_DEGREE = (Math.PI / 180) * EARTH_RADIUS_M;

export interface NearestQuery {
  lat: number;
  lng: number;
  /** Metres. */
  radius: number;
  total: number;
  categories?: readonly number[] | undefined;
}

const quarters = (t: Box): Box[] => {
  const midLat = (t.south + t.north) / 2;
  const midLng = (t.west + t.east) / 2;
  return [
    { south: t.south, north: midLat, west: t.west, east: midLng },
    { south: t.south, north: midLat, west: midLng, east: t.east },
    { south: midLat, north: t.north, west: t.west, east: midLng },
    { south: midLat, north: t.north, west: midLng, east: t.east },
  ];
};

/**
 * The `total` POIs nearest to a point within `radius` metres (great-circle), nearest first, ties
 * by id. A best-first search over boxes of the R*Tree: the box around the circle is split into
 * quarters, nearest box first, until a box holds few enough entries to read; the search stops once the
 * next box is farther than the `total`-th POI found (or than the radius). The work is bounded by
 * what the answer needs, not by how many POIs lie in the area: a dense city, a world-sized
 * radius, or a point far from all the data each read a few thousand tree entries.
 *
 * Candidates are ranked by their tree boxes, without reading their rows: the tree keeps each
 * position as a box a metre or two wide around it, which bounds the true distance from below and
 * above (the distance to its centre, less or plus the distance from its centre to a corner). Only the candidates whose lower
 * bound is within the `total`-th upper bound can be among the nearest; their exact positions are
 * read at the end, about `total` rows, where ranking by the rows read a row (a random page of a
 * big table, a disk read when the file outgrows memory) per candidate.
 */
export function nearest<P extends Position>(
  store: PoiStore,
  clientId: string,
  q: NearestQuery,
  /**
   * The exact positions of the candidates that may be kept, those of the client's: about
   * `total` rows, and whole rows when the caller wants them anyway (one read of each, not two).
   */
  exactly: (ids: readonly number[]) => P[],
): Array<Found<P>> {
  // The search starts from the boxes that hold the circle (one, two across the antimeridian, a
  // band around a pole): nothing outside them can be within the radius.
  const boxes = new TinyQueue<Tile>(
    boxesAround(q.lat, q.lng, q.radius).map((box) => ({ ...box, reach: metresToBox(q.lat, q.lng, box) })),
    (a, b) => a.reach - b.reach,
  );
  // The least upper bounds found so far, the greatest on top, at most `total`: the `total`-th
  // nearest POI is no farther than the top once there are `total`.
  const highs = new TinyQueue<number>([], (a, b) => b - a);
  const bound = (): number => (highs.length < q.total ? q.radius : Math.min(q.radius, highs.peek()!));
  // Boxes share their edges, and the R*Tree rounds outwards: a POI may come up in two of them.
  const seen = new Set<number>();
  const candidates: Candidate[] = [];
  const consider = (e: TreeEntry): void => {
    if (seen.has(e.id)) return;
    seen.add(e.id);
    // Any point of the box is within `half` of its centre: going along the meridian, then the
    // parallel, is a path, and the great circle is no longer.
    const half = ((e.north - e.south + (e.east - e.west)) / 2) * METRES_PER_DEGREE + SLACK_M;
    const centre = metresBetween(q.lat, q.lng, (e.south + e.north) / 2, (e.west + e.east) / 2);
    const low = centre - half;
    if (low > bound()) return;
    const high = centre + half;
    candidates.push({ id: e.id, low });
    if (highs.length < q.total) highs.push(high);
    else if (high < highs.peek()!) {
      highs.pop();
      highs.push(high);
    }
  };
  const categories = q.categories?.length ? q.categories : undefined;
  const search = (): void => {
    if (categories) {
      // Whichever reads fewer rows: the POIs of these categories, or the POIs around the point.
      const linked = store.linksToCategories(categories, CATEGORY_SCAN_MAX + 1);
      const around = boxes.data.reduce((n, box) => n + store.entriesIn(clientId, box, CATEGORY_SCAN_MAX + 1), 0);
      if (linked <= CATEGORY_SCAN_MAX && linked < around) {
        for (const p of store.withAnyCategory(clientId, categories)) consider({ id: p.id, south: p.lat, north: p.lat, west: p.lng, east: p.lng });
        return;
      }
    }
    while (boxes.length > 0) {
      const tile = boxes.pop()!;
      if (tile.reach > bound()) break;
      const small = tile.north - tile.south < SMALLEST_BOX_DEG && tile.east - tile.west < SMALLEST_BOX_DEG;
      if (!small && store.entriesIn(clientId, tile, ENTRIES_PER_STEP + 1) > ENTRIES_PER_STEP) {
        for (const quarter of quarters(tile)) {
          const reach = metresToBox(q.lat, q.lng, quarter);
          if (reach <= bound()) boxes.push({ ...quarter, reach });
        }
        continue;
      }
      for (const e of store.treeEntries(clientId, tile, categories, small ? q.total : undefined)) consider(e);
    }
  };
  search();
  const limit = bound();
  const kept = candidates.filter((c) => c.low <= limit).map((c) => c.id);
  return exactly(kept)
    .map((poi) => ({ poi, d: metresBetween(q.lat, q.lng, poi.lat, poi.lng) }))
    .filter((f) => f.d <= q.radius)
    .sort((a, b) => a.d - b.d || a.poi.id - b.poi.id)
    .slice(0, q.total);
}
