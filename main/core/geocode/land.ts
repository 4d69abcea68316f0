import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Polygon, Position } from 'geojson';
import KDBush from 'kdbush';
import { around } from 'geokdbush';

type D3Geo = typeof import('d3-geo');
type TopojsonClient = typeof import('topojson-client');
/** topojson-client's own parameter type, so that topojson-specification need not be a dependency. */
type Topology = Parameters<TopojsonClient['feature']>[0];
type LngLat = [lng: number, lat: number];

/*
 * Land or sea, from Natural Earth's 1:50m land polygons (world-atlas/land-50m.json: 1,419
 * polygons, 60k points), tested with d3's geoContains, which works on the sphere and so across
 * the antimeridian and around the poles. The 1:110m file drops too many islands; the 1:10m one
 * costs ~10x the time and memory, and geoContains finds open sea inside its polygons.
 *
 * Coastal tolerance: a point within TOLERANCE_KM of the 50m coastline counts as land too. That
 * coastline cuts capes, spits and piers and leaves out islets: of the points of the 1:10m
 * coastline (where a beach or pier POI lies) only 45 % fall inside the 50m polygons, and 94 %
 * within this tolerance. A point that close to land is in that country's 22 km territorial sea
 * anyway, so keeping its country is right, while open sea, hundreds of km out, stays sea.
 * It matters less than it seems: a coastal POI usually has a town within 50 km and then never
 * gets here; the ones that do are on remote capes, beaches and islands (the Skeleton Coast,
 * Patagonia, Greenland's fjords, a Fijian islet), which is what the tolerance is for.
 *
 * "Within 10 km of the coastline" is answered by a kd-tree of points every SAMPLE_KM along it
 * (its edges are 7.6 km long at the median, up to 137 km, so its vertices alone leave gaps): a
 * point up to TOLERANCE_KM - SAMPLE_KM / 2 from the coast is always found, in microseconds.
 * Testing a ring of points around it with geoContains instead took up to 9 ms next to a
 * continent, and missed islets inside the ring.
 */
const LAND_FILE = 'world-atlas/land-50m.json';
const TOLERANCE_KM = 10;
const SAMPLE_KM = 5;
const EARTH_RADIUS_KM = 6371;

/** A polygon with its spherical bounding box; west > east when the box crosses the antimeridian. */
interface Piece {
  readonly polygon: Polygon;
  readonly west: number;
  readonly south: number;
  readonly east: number;
  readonly north: number;
}

interface Land {
  readonly pieces: readonly Piece[];
  readonly coast: KDBush;
  readonly geo: D3Geo;
}

export interface LandLoadStats {
  polygons: number;
  coastPoints: number;
  /** Wall-clock time, turns given to other work included. */
  ms: number;
}

let land: Promise<Land> | undefined;
let stats: LandLoadStats | undefined;

const isTopology = (value: unknown): value is Topology =>
  typeof value === 'object' &&
  value !== null &&
  'type' in value &&
  value.type === 'Topology' &&
  'arcs' in value &&
  Array.isArray(value.arcs) &&
  'objects' in value &&
  typeof value.objects === 'object' &&
  value.objects !== null;

const crossesAntimeridian = (ring: readonly Position[]): boolean =>
  ring.some(([lng = 0], i) => Math.abs(lng - (ring[i - 1]?.[0] ?? lng)) > 180);

/**
 * The box of the vertices, which is the polygon's own box unless it crosses the antimeridian or
 * surrounds a pole (as Antarctica does: its vertices stop at -85°). Only 4 polygons do, and
 * they get d3's geoBounds, which knows about both; it would take ~50 ms for all 1,419. (A great
 * circle edge bulges past its vertices' latitudes by 0.1 km at most here: within the tolerance.)
 */
const toPiece = (geo: D3Geo, coordinates: Position[][]): Piece => {
  const polygon: Polygon = { type: 'Polygon', coordinates };
  const outer = coordinates[0] ?? [];
  if (crossesAntimeridian(outer)) {
    const [[west, south], [east, north]] = geo.geoBounds(polygon);
    return { polygon, west, south, east, north };
  }
  const lngs = outer.map(([lng = Number.NaN]) => lng);
  const lats = outer.map(([, lat = Number.NaN]) => lat);
  const [west, east, south, north] = [Math.min(...lngs), Math.max(...lngs), Math.min(...lats), Math.max(...lats)];
  return { polygon, west, south, east, north };
};

const KM_PER_DEGREE = (Math.PI / 180) * EARTH_RADIUS_KM;

/**
 * Calls back with points every SAMPLE_KM along each ring, walking its edges. Between two
 * vertices they are spaced evenly in longitude and latitude rather than along the great circle:
 * the two paths are less than 2 km apart on every edge of this data (the worst is a 120 km one
 * in Antarctica), and d3's geoInterpolate made the load ~50 ms slower.
 */
const walkCoast = (polygons: readonly Position[][][], sample: (lng: number, lat: number) => void): void => {
  for (const ring of polygons.flat()) {
    let sinceLast = SAMPLE_KM; // so that the ring's first vertex is a sample
    ring.forEach(([toLng = Number.NaN, toLat = Number.NaN], i) => {
      const [fromLng = toLng, fromLat = toLat] = ring[i - 1] ?? [];
      // The short way round: an edge may cross the antimeridian.
      const dLng = ((toLng - fromLng + 540) % 360) - 180;
      const dLat = toLat - fromLat;
      const km = KM_PER_DEGREE * Math.hypot(dLng * Math.cos((fromLat * Math.PI) / 180), dLat);
      let at = SAMPLE_KM - sinceLast; // into this edge, where the next sample is due
      if (at > km) {
        sinceLast += km;
        return;
      }
      for (; at <= km; at += SAMPLE_KM) {
        const share = km === 0 ? 0 : at / km;
        sample(((fromLng + dLng * share + 540) % 360) - 180, fromLat + dLat * share);
      }
      sinceLast = km - (at - SAMPLE_KM);
    });
  }
};

/** A kd-tree of the coastline's samples, added straight from the walk: no arrays of 100k+ numbers. */
const coastSamples = async (polygons: readonly Position[][][]): Promise<KDBush> => {
  let count = 0;
  walkCoast(polygons, () => {
    count += 1;
  });
  const index = new KDBush(count);
  walkCoast(polygons, (lng, lat) => index.add(lng, lat));
  await nextTurn();
  index.finish();
  return index;
};

/**
 * ~0.1 s of CPU in all, cut into steps of at most ~40 ms with a turn of the event loop between
 * them, so that other requests and signals are not held up for all of it.
 */
const buildLand = async (): Promise<Land> => {
  await nextTurn();
  const started = performance.now();
  const [geo, topojson] = await Promise.all([import('d3-geo'), import('topojson-client')]);
  const path = createRequire(import.meta.url).resolve(LAND_FILE);
  const topology: unknown = JSON.parse(await readFile(path, 'utf8'));
  await nextTurn();
  if (!isTopology(topology)) throw new Error(`${LAND_FILE} is not TopoJSON`);
  const object = topology.objects['land'];
  if (object === undefined) throw new Error(`${LAND_FILE} has no "land" object`);
  const converted = topojson.feature(topology, object);
  const geometries = 'features' in converted ? converted.features.map((f) => f.geometry) : [converted.geometry];
  const polygons = geometries.flatMap((g) =>
    g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : [],
  );
  await nextTurn();
  const pieces = polygons.map((coordinates) => toPiece(geo, coordinates));
  await nextTurn();
  const coast = await coastSamples(polygons);
  stats = { polygons: pieces.length, coastPoints: coast.numItems, ms: Math.round(performance.now() - started) };
  return { pieces, coast, geo };
};

const loadLand = (): Promise<Land> => {
  land ??= buildLand().catch((error: unknown) => {
    land = undefined; // let a later call retry rather than caching the failure
    throw error;
  });
  return land;
};

/** How long the land polygons took to load, once they have been. */
export const landLoadStats = (): LandLoadStats | undefined => stats;

const withinLng = (piece: Piece, lng: number): boolean =>
  piece.west <= piece.east ? lng >= piece.west && lng <= piece.east : lng >= piece.west || lng <= piece.east;

const inBox = (piece: Piece, lng: number, lat: number): boolean =>
  lat >= piece.south &&
  lat <= piece.north &&
  // -180 and 180 are one meridian, which a box may name either way.
  (withinLng(piece, lng) || (Math.abs(lng) === 180 && withinLng(piece, -lng)));

/** Whether the point is on land, or within TOLERANCE_KM of its coast (see above). */
export const isLand = async (lat: number, lng: number): Promise<boolean> => {
  const { pieces, coast, geo } = await loadLand();
  if (around(coast, lng, lat, 1, TOLERANCE_KM).length > 0) return true;
  const point: LngLat = [lng, lat];
  // The box test first: geoContains walks every edge of a polygon (~1 ms for Afro-Eurasia).
  return pieces.some((piece) => inBox(piece, lng, lat) && geo.geoContains(piece.polygon, point));
};
