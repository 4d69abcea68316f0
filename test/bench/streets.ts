import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { buildSampleMap } from '../../main/build/sample-map.js';
import { createGeocoder, StreetGeocoder } from '../../main/core/geocode/index.js';
import { openCore } from '../support/core.js';
import { percentile } from './stats.js';
import type { Row } from './table.js';

/** docs/performance.md#street-addresses-offline: the longest the event loop may be held per POI. */
export const STREET_GOALS = { holdMs: 10 } as const;

/** How long the event loop was held at a stretch (between two turns of a setImmediate ticker), in ms: GC pauses and the machine's other load included. */
interface Hold {
  p99: number;
  max: number;
}

interface Latency {
  points: number;
  p50: number;
  p99: number;
  hold: Hold;
}

export interface StreetBenchResult {
  cold: Latency;
  warm: Latency;
  /** The whole offline geocoder a POI goes through (places, then streets), warm. */
  composite: Latency;
  /** The share of the random points that got a street. */
  streetShare: number;
  /** The same rows imported without geocoding, with it but no map package (places only), and with the sample city (places and streets). */
  imports: { rows: number; plain: Imported; places: Imported; streets: Imported; addressShare: number };
}

/** The gaps between turns of the event loop while `work` runs: how long it was held, each time. */
async function holding<T>(work: () => Promise<T>): Promise<{ value: T; hold: Hold }> {
  const gaps: number[] = [];
  let last = performance.now();
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await work();
    // A stretch with no turn at all, up to the end, counts too.
    gaps.push(performance.now() - last);
    gaps.sort((a, b) => a - b);
    return { value, hold: { p99: percentile(gaps, 99), max: gaps.at(-1) ?? 0 } };
  } finally {
    running = false;
  }
}

interface Imported {
  seconds: number;
  hold: Hold;
}

/** A seeded generator, so that each run geocodes the same points. */
const random = (seed: number): (() => number) => () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};

async function timed(points: ReadonlyArray<[number, number]>, reverse: (lat: number, lng: number) => Promise<unknown>): Promise<Latency> {
  const times: number[] = [];
  const { hold } = await holding(async () => {
    for (const [lat, lng] of points) {
      // Each POI comes in a request of its own: a turn of the event loop between two.
      await nextTurn();
      const t0 = performance.now();
      await reverse(lat, lng);
      times.push(performance.now() - t0);
    }
  });
  times.sort((a, b) => a - b);
  return { points: points.length, p50: percentile(times, 50), p99: percentile(times, 99), hold };
}

/**
 * Offline reverse geocoding from the sample city's tiles: `points` random points in its extent,
 * each with an empty tile cache (cold: a new reader per point) and with the cache filled (warm);
 * then an import of `rows` rows with --geocode beside the same import without it.
 */
export async function benchStreets(points = 2_000, rows = 10_000): Promise<StreetBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'poi-bench-streets-'));
  try {
    const sample = join(dir, 'sample.mbtiles');
    buildSampleMap(sample);
    const core = openCore({ file: join(dir, 'poi.sqlite'), mapsDir: join(dir, 'maps') });
    try {
      const pkg = (await core.maps.importSampleOnFirstStart(sample))!;
      const [west, south, east, north] = pkg.bounds;
      const next = random(15);
      const at = (): [number, number] => [south + next() * (north - south), west + next() * (east - west)];
      const sampled = Array.from({ length: points }, at);
      const cold = await timed(sampled, (lat, lng) => new StreetGeocoder(core.maps).reverse(lat, lng));
      const warmReader = new StreetGeocoder(core.maps);
      let streets = 0;
      for (const [lat, lng] of sampled) if ((await warmReader.reverse(lat, lng)).address !== undefined) streets++;
      const warm = await timed(sampled, (lat, lng) => warmReader.reverse(lat, lng));
      const whole = createGeocoder({}, core.maps);
      await whole.warm();
      await whole.reverse(sampled[0]![0], sampled[0]![1]);
      const composite = await timed(sampled, (lat, lng) => whole.reverse(lat, lng));

      const csv = (): Readable => {
        const lines = ['name,lat,lng,categories'];
        for (let i = 0; i < rows; i++) {
          const [lat, lng] = at();
          lines.push(`Row ${i},${lat.toFixed(6)},${lng.toFixed(6)},1`);
        }
        return Readable.from([Buffer.from(`${lines.join('\n')}\n`)]);
      };
      const importTimed = async (name: string, geocode: boolean): Promise<Imported & { client: string }> => {
        const client = core.clients.create({ name }).client_id;
        const t0 = performance.now();
        const { value, hold } = await holding(() => core.importPois(client, csv(), 'csv', { geocode }));
        if (value.added !== rows) throw new Error(`the import added ${value.added} of ${rows} rows`);
        return { client, seconds: (performance.now() - t0) / 1000, hold };
      };
      const plain = await importTimed('without geocoding', false);
      const streetsImport = await importTimed('places and streets', true);
      core.maps.remove(pkg.id);
      const places = await importTimed('places only', true);
      const withAddress = core.db.prepare<[string], number>('SELECT count(*) FROM pois WHERE client_id = ? AND address IS NOT NULL').pluck().get(streetsImport.client)!;
      return {
        cold,
        warm,
        composite,
        streetShare: streets / points,
        imports: { rows, plain, places, streets: streetsImport, addressShare: withAddress / rows },
      };
    } finally {
      core.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function streetRows(r: StreetBenchResult | undefined): Row[] {
  if (!r) return [];
  const ms = (n: number): string => `${n.toFixed(2)} ms`;
  const held = (h: Hold): string => `hold p99 ${ms(h.p99)}, max ${ms(h.max)}`;
  const goal = (h: Hold): string => `hold p99<${STREET_GOALS.holdMs}ms ${h.p99 < STREET_GOALS.holdMs ? 'met' : 'NOT met'}`;
  const latency = (label: string, l: Latency, note: string): Row => [label, 'timed', `${l.points.toLocaleString('en')} points`, ms(l.p50), ms(l.p99), note, held(l.hold), goal(l.hold)];
  const n = r.imports.rows.toLocaleString('en');
  const imported = (label: string, i: Imported, note: string): Row => [label, 'timed', `${(r.imports.rows / i.seconds).toFixed(0)} rows/s`, `${i.seconds.toFixed(2)} s`, '', note, held(i.hold), goal(i.hold)];
  return [
    latency('streets: reverse geocoding, cold tile cache (sample city)', r.cold, `${(r.streetShare * 100).toFixed(0)} % got a street`),
    latency('streets: reverse geocoding, warm tile cache', r.warm, ''),
    latency('streets: whole offline geocoder (places + streets), warm', r.composite, ''),
    imported(`streets: import of ${n} rows without --geocode`, r.imports.plain, ''),
    imported(`streets: import of ${n} rows with --geocode, places only`, r.imports.places, 'no map package'),
    imported(`streets: import of ${n} rows with --geocode, places and streets`, r.imports.streets, `${(r.imports.addressShare * 100).toFixed(0)} % got a street`),
  ];
}

if (process.argv[1] && import.meta.filename === process.argv[1]) console.log(JSON.stringify(await benchStreets(Number(process.argv[2] ?? 2_000), Number(process.argv[3] ?? 10_000)), null, 2));
