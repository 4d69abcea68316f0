import { setImmediate as nextTurn } from 'node:timers/promises';
import { VectorTile, type VectorTileFeature } from '@mapbox/vector-tile';
import Pbf from 'pbf';
import type { MapPackage } from '../../../shared/maps.js';
import { EARTH_RADIUS_M } from '../pois/geo.js';
import { assertCoordinate, compactSourced, type AddressSources, type GeocodedAddress, type SourcedAddress, type SourcedGeocoder } from './geocoder.js';

/**
 * Where the common vector tile schemas keep what an address needs: the layers of named roads, of
 * house numbers (and the property holding the number), of places (and which kinds of place are
 * a city), and the property holding a name. Every tile is read through all of them: a layer a
 * schema does not have is simply not in its tiles (Mapbox Streets v7's `road` has no names, so
 * its roads come from `road_label`).
 */
export const STREET_LAYERS = {
  schemas: {
    openmaptiles: {
      roads: ['transportation_name'],
      numbers: [{ layer: 'housenumber', number: 'housenumber' }],
      places: [{ layer: 'place', kind: 'class', cities: ['city', 'town', 'village'] }],
    },
    'mapbox-streets-v7': {
      roads: ['road_label'],
      numbers: [{ layer: 'housenum_label', number: 'house_num' }],
      places: [{ layer: 'place_label', kind: 'type', cities: ['city', 'town', 'village'] }],
    },
    'mapbox-streets-v8': {
      roads: ['road'],
      numbers: [{ layer: 'housenum_label', number: 'house_num' }],
      places: [{ layer: 'place_label', kind: 'type', cities: ['city', 'town', 'village'] }],
    },
    protomaps: {
      roads: ['roads'],
      numbers: [],
      places: [{ layer: 'places', kind: 'kind', cities: ['locality'] }],
    },
  },
  /** The name of a road or place, in every schema above. */
  name: 'name',
  /** None of the schemas above has postal codes; some builds add one of these to house numbers or roads. */
  postcode: ['postcode', 'postal_code', 'addr:postcode'],
} as const satisfies {
  schemas: Record<string, { roads: readonly string[]; numbers: ReadonlyArray<{ layer: string; number: string }>; places: ReadonlyArray<{ layer: string; kind: string; cities: readonly string[] }> }>;
  name: string;
  postcode: readonly string[];
};

/** A road farther than this from the point is not its street, nor its cross street. */
export const STREET_WITHIN_METRES = 60;
/**
 * A city, town or village label farther than this is not the place the point is in. Labels
 * stand at a place's centre, often tiles away from a street, so they are looked for at a zoom
 * PLACE_ZOOMS_UP below the package's highest (where a tile spans kilometres).
 */
export const PLACE_WITHIN_METRES = 5_000;
const PLACE_ZOOMS_UP = 3;
/** A house number farther than this from the point is a neighbour's. */
export const HOUSE_NUMBER_WITHIN_METRES = 10;
/**
 * A tile bigger than this (once inflated) is skipped, and counted: decoding its layers' headers
 * takes ~3.5 ms per MiB in one stretch, and real street-level tiles hold a few hundred KiB.
 */
export const MAX_STREET_TILE_BYTES = 2 * 1024 ** 2;
/** A tile with more features than this in the layers read above is skipped, and counted. */
export const MAX_STREET_FEATURES = 20_000;
/** Decoded tiles kept (least recently used go first): an import of nearby rows reads each once. */
export const STREET_TILES_CACHED = 64;
/**
 * Fewer when their tiles' bytes pass this: a tile decodes to at most ~8 times its bytes (each
 * point of two bytes or more becomes two doubles), so big tiles of a stranger's package cannot
 * make 64 of them gigabytes.
 */
export const STREET_CACHE_BYTES = 16 * 1024 ** 2;
/** Decoding gives the event loop back after this long (a big tile's features are read in slices). */
const DECODE_SLICE_MS = 4;
/** Tiles read around the point at most, per side, at a package's highest zoom (tiles smaller than the limit). */
const MAX_TILES_ACROSS = 3;

const METRES_PER_DEGREE = (Math.PI / 180) * EARTH_RADIUS_M;

/** How the history names a package that filled a field. */
export const packageSource = (name: string): string => `offline map package ${name}`;

/** What the street geocoder reads: the packages now imported, and their tiles (main/core/maps/packages.ts). */
export interface StreetTiles {
  list(): readonly MapPackage[];
  tile(id: string, z: number, x: number, y: number): Promise<{ bytes: Uint8Array } | null>;
}

export interface StreetLimits {
  maxTileBytes: number;
  maxFeatures: number;
  tilesCached: number;
  cachedBytes: number;
}

/** Why tiles were skipped, and how often the cache spared a decode. */
export interface StreetStats {
  decoded: number;
  cacheHits: number;
  skippedTooBig: number;
  skippedTooManyFeatures: number;
  skippedUnreadable: number;
}

interface Road {
  name: string;
  /** lng, lat, lng, lat... of each line, one array per line. */
  lines: Float64Array[];
  west: number;
  south: number;
  east: number;
  north: number;
  postcode: string | undefined;
}

interface Spot {
  text: string;
  lng: number;
  lat: number;
  postcode: string | undefined;
}

/** What a tile holds for addresses, in degrees: read once, then only measured against. */
interface StreetTile {
  roads: Road[];
  numbers: Spot[];
  places: Spot[];
}

const EMPTY: StreetTile = { roads: [], numbers: [], places: [] };
const NOTHING = { tile: EMPTY, bytes: 0 };

/** A tile in the cache: its addresses (being read, or read), and its bytes once decoded. */
interface Kept {
  tile: Promise<StreetTile>;
  bytes: number;
}

/** The roles of layers, by layer name, from the table. */
const ROAD_LAYERS = new Set<string>(Object.values(STREET_LAYERS.schemas).flatMap((s) => s.roads));
const NUMBER_LAYERS = new Map<string, string>(Object.values(STREET_LAYERS.schemas).flatMap((s) => s.numbers.map((n) => [n.layer, n.number] as const)));
const PLACE_LAYERS = new Map<string, { kind: string; cities: ReadonlySet<string> }>(
  Object.values(STREET_LAYERS.schemas).flatMap((s) => s.places.map((p) => [p.layer, { kind: p.kind, cities: new Set<string>(p.cities) }] as const)),
);

const text = (value: string | number | boolean | undefined): string | undefined => {
  if (value === undefined || typeof value === 'boolean') return undefined;
  const s = String(value).trim();
  return s === '' ? undefined : s;
};

const postcodeOf = (f: VectorTileFeature): string | undefined => {
  for (const key of STREET_LAYERS.postcode) {
    const found = text(f.properties[key]);
    if (found !== undefined) return found;
  }
  return undefined;
};

/** Tile-local coordinates to degrees, for tile z/x/y of `extent` units. */
const projector = (z: number, x: number, y: number, extent: number) => {
  const n = 2 ** z;
  return {
    lng: (px: number): number => ((x + px / extent) / n) * 360 - 180,
    lat: (py: number): number => (Math.atan(Math.sinh(Math.PI * (1 - (2 * (y + py / extent)) / n))) * 180) / Math.PI,
  };
};

/**
 * A feature's lines in tile units (x, y, x, y...), as @mapbox/vector-tile's loadGeometry reads them
 * but bounded by the geometry's bytes: there a ClosePath is repeated its count times without
 * reading a byte, so 7 bytes claiming 2^24 of them made 16 million points (855 MiB, 7 s), and
 * 2^27 would exhaust the heap. The MVT specification gives ClosePath a count of 1: more are read
 * as one, and every other point costs at least two bytes. The geometry's start is the reader's
 * private field, checked rather than assumed; without it the feature is left out.
 */
function linesOf(f: VectorTileFeature): number[][] {
  const pbf: unknown = Reflect.get(f, '_pbf');
  const start: unknown = Reflect.get(f, '_geometry');
  if (!(pbf instanceof Pbf) || typeof start !== 'number' || start < 0) return [];
  pbf.pos = start;
  const end = pbf.readVarint() + pbf.pos;
  const lines: number[][] = [];
  let line: number[] | undefined;
  let x = 0;
  let y = 0;
  while (pbf.pos < end) {
    const command = pbf.readVarint();
    const id = command % 8;
    if (id === 7) {
      if (line !== undefined) line.push(line[0]!, line[1]!);
      continue;
    }
    if (id !== 1 && id !== 2) throw new Error(`unknown geometry command ${id}`);
    for (let left = Math.floor(command / 8); left > 0 && pbf.pos < end; left--) {
      x += pbf.readSVarint();
      y += pbf.readSVarint();
      if (id === 2) line?.push(x, y);
      else {
        if (line !== undefined) lines.push(line);
        line = [x, y];
      }
    }
  }
  if (line !== undefined) lines.push(line);
  return lines;
}

const roadOf = (name: string, f: VectorTileFeature, p: ReturnType<typeof projector>): Road => {
  const road: Road = { name, lines: [], west: Infinity, south: Infinity, east: -Infinity, north: -Infinity, postcode: postcodeOf(f) };
  for (const units of linesOf(f)) {
    const line = new Float64Array(units.length);
    for (let i = 0; i + 1 < units.length; i += 2) {
      const lng = p.lng(units[i]!);
      const lat = p.lat(units[i + 1]!);
      line[i] = lng;
      line[i + 1] = lat;
      road.west = Math.min(road.west, lng);
      road.east = Math.max(road.east, lng);
      road.south = Math.min(road.south, lat);
      road.north = Math.max(road.north, lat);
    }
    road.lines.push(line);
  }
  return road;
};

/** A point feature's position (a label's anchor; a polygon's first vertex would do no better). */
const spotOf = (label: string, f: VectorTileFeature, p: ReturnType<typeof projector>): Spot | undefined => {
  const [x, y] = linesOf(f)[0] ?? [];
  return x === undefined || y === undefined ? undefined : { text: label, lng: p.lng(x), lat: p.lat(y), postcode: postcodeOf(f) };
};

/**
 * Metres from the point to segment a-b, on the sphere: over a few hundred metres the sphere's
 * surface around the point is a plane to a millimetre, so each end is placed on the plane tangent
 * at the point (east and north metres) and the plane's point-to-segment distance is taken.
 */
const segmentMetres = (cosLat: number, lng: number, lat: number, aLng: number, aLat: number, bLng: number, bLat: number): number => {
  const ax = (aLng - lng) * cosLat * METRES_PER_DEGREE;
  const ay = (aLat - lat) * METRES_PER_DEGREE;
  const bx = (bLng - lng) * cosLat * METRES_PER_DEGREE;
  const by = (bLat - lat) * METRES_PER_DEGREE;
  const dx = bx - ax;
  const dy = by - ay;
  const length2 = dx * dx + dy * dy;
  const t = length2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / length2));
  return Math.hypot(ax + t * dx, ay + t * dy);
};

const pointMetres = (cosLat: number, lng: number, lat: number, to: Spot): number =>
  Math.hypot((to.lng - lng) * cosLat * METRES_PER_DEGREE, (to.lat - lat) * METRES_PER_DEGREE);

/** The nearest distance from the point to a road, or Infinity when its box is beyond `limit`. */
const roadMetres = (road: Road, lng: number, lat: number, cosLat: number, limit: number): number => {
  const dLat = limit / METRES_PER_DEGREE;
  const dLng = dLat / Math.max(cosLat, 1e-6);
  if (lat < road.south - dLat || lat > road.north + dLat || lng < road.west - dLng || lng > road.east + dLng) return Infinity;
  let best = Infinity;
  for (const line of road.lines) {
    if (line.length === 2) best = Math.min(best, segmentMetres(cosLat, lng, lat, line[0]!, line[1]!, line[0]!, line[1]!));
    for (let i = 0; i + 3 < line.length; i += 2) {
      best = Math.min(best, segmentMetres(cosLat, lng, lat, line[i]!, line[i + 1]!, line[i + 2]!, line[i + 3]!));
    }
  }
  return best;
};

/** The tiles at zoom z within `metres` of the point: its own, and those whose edge is nearer than that. */
const tilesAround = (lat: number, lng: number, z: number, metres: number): Array<{ x: number; y: number }> => {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  const fx = ((lng + 180) / 360) * n;
  const fy = ((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n;
  const tileMetres = (2 * Math.PI * EARTH_RADIUS_M * Math.cos(rad)) / n;
  const reach = Math.min(metres / Math.max(tileMetres, 1e-9), (MAX_TILES_ACROSS - 1) / 2);
  const out: Array<{ x: number; y: number }> = [];
  for (let y = Math.floor(fy - reach); y <= Math.floor(fy + reach); y++) {
    if (y < 0 || y >= n) continue;
    for (let x = Math.floor(fx - reach); x <= Math.floor(fx + reach); x++) out.push({ x: ((x % n) + n) % n, y });
  }
  return out;
};

/** A candidate road name and how far it is, with the package it came from. */
interface Found {
  metres: number;
  source: string;
}

/**
 * Reverse geocoding from the vector tiles of the offline map packages (the bundled sample city
 * among them, while it is imported), with no network: the nearest named road within
 * STREET_WITHIN_METRES is the address (with the house number of a house-number feature within
 * HOUSE_NUMBER_WITHIN_METRES: "Market Street 1455"), the nearest other named road within it the
 * cross street, a place layer's nearest city, town or village within PLACE_WITHIN_METRES the
 * city, a postal code where a feature carries one. Each package is read at its highest zoom
 * (places a few zooms below). docs/field-guide.md#street-addresses-offline.
 */
export class StreetGeocoder implements SourcedGeocoder {
  private readonly cache = new Map<string, Kept>();
  /** The bytes of the tiles decoded in the cache. */
  private cachedBytes = 0;
  private readonly limits: StreetLimits;
  private readonly counts: StreetStats = { decoded: 0, cacheHits: 0, skippedTooBig: 0, skippedTooManyFeatures: 0, skippedUnreadable: 0 };

  constructor(
    private readonly packages: StreetTiles,
    limits: Partial<StreetLimits> = {},
  ) {
    this.limits = { maxTileBytes: MAX_STREET_TILE_BYTES, maxFeatures: MAX_STREET_FEATURES, tilesCached: STREET_TILES_CACHED, cachedBytes: STREET_CACHE_BYTES, ...limits };
  }

  stats(): StreetStats {
    return { ...this.counts };
  }

  async reverse(lat: number, lng: number): Promise<GeocodedAddress> {
    return (await this.reverseSourced(lat, lng)).fields;
  }

  async reverseSourced(lat: number, lng: number): Promise<SourcedAddress> {
    assertCoordinate(lat, lng);
    const cosLat = Math.cos((lat * Math.PI) / 180);
    const roads = new Map<string, Found & { postcode: string | undefined }>();
    let number: (Found & Spot) | undefined;
    let place: (Found & Spot) | undefined;
    // The package list is read at each call: packages are imported and removed while the app runs.
    for (const pkg of this.packages.list()) {
      if (pkg.format !== 'pbf' || !covers(pkg, lat, lng)) continue;
      const source = packageSource(pkg.name);
      const placeZoom = Math.max(pkg.minZoom, pkg.maxZoom - PLACE_ZOOMS_UP);
      for (const { x, y } of tilesAround(lat, lng, placeZoom, PLACE_WITHIN_METRES)) {
        for (const spot of (await this.tile(pkg.id, placeZoom, x, y)).places) {
          const metres = pointMetres(cosLat, lng, lat, spot);
          if (metres <= PLACE_WITHIN_METRES && (place === undefined || metres < place.metres)) place = { ...spot, metres, source };
        }
      }
      for (const { x, y } of tilesAround(lat, lng, pkg.maxZoom, STREET_WITHIN_METRES)) {
        const tile = await this.tile(pkg.id, pkg.maxZoom, x, y);
        for (const road of tile.roads) {
          const metres = roadMetres(road, lng, lat, cosLat, STREET_WITHIN_METRES);
          const known = roads.get(road.name);
          if (metres <= STREET_WITHIN_METRES && (known === undefined || metres < known.metres)) roads.set(road.name, { metres, source, postcode: road.postcode ?? known?.postcode });
        }
        for (const spot of tile.numbers) {
          const metres = pointMetres(cosLat, lng, lat, spot);
          if (metres <= HOUSE_NUMBER_WITHIN_METRES && (number === undefined || metres < number.metres)) number = { ...spot, metres, source };
        }
      }
    }
    const near = [...roads.entries()].sort((a, b) => a[1].metres - b[1].metres || a[0].localeCompare(b[0]));
    const [street, cross] = near;
    const sources: AddressSources = {};
    const fields: GeocodedAddress = {};
    if (street !== undefined) {
      fields.address = number === undefined ? street[0] : `${street[0]} ${number.text}`;
      sources.address = street[1].source;
    }
    if (cross !== undefined) {
      fields.cross_street = cross[0];
      sources.cross_street = cross[1].source;
    }
    const postcode = number?.postcode !== undefined ? number : street?.[1].postcode !== undefined ? { postcode: street[1].postcode, source: street[1].source } : undefined;
    if (postcode?.postcode !== undefined) {
      fields.postal_code = postcode.postcode;
      sources.postal_code = postcode.source;
    }
    if (place !== undefined) {
      fields.city = place.text;
      sources.city = place.source;
    }
    return compactSourced({ fields, sources, roads: near.map(([name, found]) => ({ name, source: found.source })) });
  }

  /** A tile's addresses, decoded once and kept (least recently used dropped). */
  private tile(id: string, z: number, x: number, y: number): Promise<StreetTile> {
    const key = `${id}/${z}/${x}/${y}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) {
      this.counts.cacheHits++;
      this.cache.delete(key);
      this.cache.set(key, cached);
      return cached.tile;
    }
    const kept: Kept = { tile: Promise.resolve(EMPTY), bytes: 0 };
    kept.tile = this.read(id, z, x, y).then(({ tile, bytes }) => {
      // Still kept (not dropped while it was read): its weight counts from now.
      if (this.cache.get(key) === kept) {
        kept.bytes = bytes;
        this.cachedBytes += bytes;
        this.evict();
      }
      return tile;
    });
    this.cache.set(key, kept);
    this.evict();
    return kept.tile;
  }

  private evict(): void {
    while (this.cache.size > 0 && (this.cache.size > this.limits.tilesCached || this.cachedBytes > this.limits.cachedBytes)) {
      const [oldest, kept] = this.cache.entries().next().value!;
      this.cache.delete(oldest);
      this.cachedBytes -= kept.bytes;
    }
  }

  private async read(id: string, z: number, x: number, y: number): Promise<{ tile: StreetTile; bytes: number }> {
    let bytes: Uint8Array | undefined;
    try {
      bytes = (await this.packages.tile(id, z, x, y))?.bytes;
    } catch {
      // A tile the package cannot give (too big as stored, not inflatable): the others still count.
      this.counts.skippedUnreadable++;
      return NOTHING;
    }
    if (bytes === undefined) return NOTHING;
    if (bytes.byteLength > this.limits.maxTileBytes) {
      this.counts.skippedTooBig++;
      return NOTHING;
    }
    try {
      // Each decode starts on a turn of its own: a point may need several tiles decoded, and
      // together they would hold the event loop for the sum of them.
      await nextTurn();
      return { tile: await this.decode(bytes, z, x, y), bytes: bytes.byteLength };
    } catch {
      this.counts.skippedUnreadable++;
      return NOTHING;
    }
  }

  private async decode(bytes: Uint8Array, z: number, x: number, y: number): Promise<StreetTile> {
    const vt = new VectorTile(new Pbf(bytes));
    const layers = Object.values(vt.layers).filter((l) => ROAD_LAYERS.has(l.name) || NUMBER_LAYERS.has(l.name) || PLACE_LAYERS.has(l.name));
    if (layers.reduce((sum, l) => sum + l.length, 0) > this.limits.maxFeatures) {
      this.counts.skippedTooManyFeatures++;
      return EMPTY;
    }
    const out: StreetTile = { roads: [], numbers: [], places: [] };
    let sliceStart = performance.now();
    for (const layer of layers) {
      const p = projector(z, x, y, layer.extent);
      const numberKey = NUMBER_LAYERS.get(layer.name);
      const placeKind = PLACE_LAYERS.get(layer.name);
      for (let i = 0; i < layer.length; i++) {
        if (performance.now() - sliceStart > DECODE_SLICE_MS) {
          await nextTurn();
          sliceStart = performance.now();
        }
        const f = layer.feature(i);
        const name = text(f.properties[STREET_LAYERS.name]);
        if (ROAD_LAYERS.has(layer.name) && name !== undefined && f.type === 2) out.roads.push(roadOf(name, f, p));
        const houseNumber = numberKey === undefined ? undefined : text(f.properties[numberKey]);
        if (houseNumber !== undefined) {
          const spot = spotOf(houseNumber, f, p);
          if (spot) out.numbers.push(spot);
        }
        if (placeKind !== undefined && name !== undefined && placeKind.cities.has(String(f.properties[placeKind.kind]))) {
          const spot = spotOf(name, f, p);
          if (spot) out.places.push(spot);
        }
      }
    }
    this.counts.decoded++;
    return out;
  }
}

/** Whether a package's area holds the point, with the street limit's margin; west is past east across the antimeridian. */
const covers = (pkg: MapPackage, lat: number, lng: number): boolean => {
  const [west, south, east, north] = pkg.bounds;
  const dLat = STREET_WITHIN_METRES / METRES_PER_DEGREE;
  const dLng = dLat / Math.max(Math.cos((lat * Math.PI) / 180), 1e-6);
  const inLng = west <= east ? lng >= west - dLng && lng <= east + dLng : lng >= west - dLng || lng <= east + dLng;
  return lat >= south - dLat && lat <= north + dLat && inLng;
};
