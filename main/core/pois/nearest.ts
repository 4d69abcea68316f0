import TinyQueue from 'tinyqueue';
import { boxesAround, metresBetween, metresToBox, type Box } from './geo.js';
import type { Position, PoiStore } from './poi-store.js';

/**
 * A box holding more of the client's R*Tree entries than this is split before its POIs are
 * read: no step of a search reads more rows, however dense the data.
 */
export const ENTRIES_PER_STEP = 512;
/**
 * Categories given to at most this many POIs (of every client) may be searched through the
 * category index, when they are fewer than the POIs around the point: reading them all then
 * costs less than finding a rare category among the POIs of a dense area box by box.
 */
export const CATEGORY_SCAN_MAX = 20_000;
/**
 * Boxes smaller than this (about 1 m) are not split further: their POIs are all but equidistant,
 * and the `total` of lowest id are taken (POIs stacked on one spot tie, and ties go by id).
 */
const SMALLEST_BOX_DEG = 1e-5;

interface Tile extends Box {
  /** The least distance from the query point to any point of the tile. */
  reach: number;
}

interface Found {
  id: number;
  d: number;
}

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
 * radius, or a point far from all the data each read a few thousand rows.
 */
export function nearest(store: PoiStore, clientId: string, q: NearestQuery): Found[] {
  // The search starts from the boxes that hold the circle (one, two across the antimeridian, a
  // band around a pole): nothing outside them can be within the radius.
  const boxes = new TinyQueue<Tile>(
    boxesAround(q.lat, q.lng, q.radius).map((box) => ({ ...box, reach: metresToBox(q.lat, q.lng, box) })),
    (a, b) => a.reach - b.reach,
  );
  // The best found so far, farthest on top, at most `total`.
  const best = new TinyQueue<Found>([], (a, b) => b.d - a.d || b.id - a.id);
  const bound = (): number => (best.length < q.total ? q.radius : Math.min(q.radius, best.peek()!.d));
  // Boxes share their edges, and the R*Tree rounds outwards: a POI may come up in two of them.
  const seen = new Set<number>();
  const keep = (p: Position): void => {
    if (seen.has(p.id)) return;
    seen.add(p.id);
    const d = metresBetween(q.lat, q.lng, p.lat, p.lng);
    if (d > q.radius) return;
    const worst = best.peek();
    if (best.length < q.total) best.push({ id: p.id, d });
    else if (worst && (d < worst.d || (d === worst.d && p.id < worst.id))) {
      best.pop();
      best.push({ id: p.id, d });
    }
  };
  const categories = q.categories?.length ? q.categories : undefined;
  if (categories) {
    // Whichever reads fewer rows: the POIs of these categories, or the POIs around the point.
    const linked = store.linksToCategories(categories, CATEGORY_SCAN_MAX + 1);
    const around = boxes.data.reduce((n, box) => n + store.entriesIn(clientId, box, CATEGORY_SCAN_MAX + 1), 0);
    if (linked <= CATEGORY_SCAN_MAX && linked < around) {
      for (const p of store.withAnyCategory(clientId, categories)) keep(p);
      return sorted(best);
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
    for (const p of store.candidates(clientId, tile, categories, small ? q.total : undefined)) keep(p);
  }
  return sorted(best);
}

function sorted(best: TinyQueue<Found>): Found[] {
  const out: Found[] = [];
  while (best.length > 0) out.push(best.pop()!);
  return out.reverse();
}
