import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import type { Feature, FeatureCollection } from 'geojson';
import Pbf from 'pbf';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { writeMbtiles, writePmtiles } from '../../main/build/map-package-writer.js';
import { buildSampleMap } from '../../main/build/sample-map.js';
import { createGeocoder, MAX_STREET_FEATURES, MAX_STREET_TILE_BYTES, StreetGeocoder } from '../../main/core/geocode/index.js';
import { invokeApi, testCore, type TestCore } from '../support/core.js';
import { tileAt, vectorTiles } from '../support/map-fixtures.js';

/** A port nothing listens on: Nominatim "configured" but unreachable, as with the network down. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
};

let dir: string;
let core: TestCore;
let nominatimUrl: string;

beforeAll(async () => {
  nominatimUrl = `http://127.0.0.1:${await closedPort()}`;
  // The places index (~0.3 s) built once, outside the timed parts.
  await createGeocoder().warm();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'streets-'));
  core = testCore({ mapsDir: join(dir, 'maps'), geocoding: { nominatimUrl, timeoutMs: 500 } });
});
afterEach(() => {
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

const importSample = async (): Promise<void> => {
  const file = join(dir, 'sample.mbtiles');
  buildSampleMap(file);
  await core.maps.importSampleOnFirstStart(file);
};

/** Haight St, 15 m east of Ashbury St (the sample's tile 15/5238/12666; the crossing is at 37.77001, -122.44700). */
const HAIGHT_ASHBURY = { lat: 37.77003, lng: -122.44683 };

/** Where the POI's newest change found each geocoded field (its history's `geocoded`). */
const sourcesOf = async (client: string, poi: number) => (await core.console['pois.history']({ clientId: client, poi }))[0]!.geocoded;

const addGeocoded = async (client: string, at: { lat: number; lng: number }) =>
  core.console['pois.add']({ clientId: client, fields: { name: 'Spot', lat: at.lat, lng: at.lng, categories: [1], geocode: true } });

describe('street addresses from the bundled sample city (Mapbox Streets v7), with the network down', () => {
  it("fills the address with the street's name and the cross street with the crossing one", async () => {
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    const poi = await addGeocoded(client, HAIGHT_ASHBURY);
    // Before: address and cross_street null (the offline data had only city and country).
    expect(poi).toMatchObject({ address: 'Haight St', cross_street: 'Ashbury St', city: 'San Francisco', country: 'United States', postal_code: null });
  });

  it('follows the packages as they are removed and imported while the app runs', async () => {
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    const [sample] = core.maps.list();
    core.console['maps.remove']({ id: sample!.id });
    expect(await addGeocoded(client, HAIGHT_ASHBURY)).toMatchObject({ address: null, cross_street: null, city: 'San Francisco' });
    const file = join(dir, 'again.mbtiles');
    buildSampleMap(file);
    await core.maps.importFile(file);
    expect(await addGeocoded(client, HAIGHT_ASHBURY)).toMatchObject({ address: 'Haight St', cross_street: 'Ashbury St' });
  });

  it('leaves the street empty where no road is within 60 m, and a supplied field alone', async () => {
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    // Inside Buena Vista Park, over 100 m from any named road.
    expect(await addGeocoded(client, { lat: 37.7684, lng: -122.4413 })).toMatchObject({ address: null, cross_street: null });
    const given = await core.console['pois.add']({ clientId: client, fields: { name: 'Given', ...HAIGHT_ASHBURY, address: 'Our own words', categories: [1], geocode: true } });
    expect(given).toMatchObject({ address: 'Our own words', cross_street: 'Ashbury St' });
  });

  it('says in the POI history which source filled each address field', async () => {
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    const poi = await addGeocoded(client, HAIGHT_ASHBURY);
    expect(await sourcesOf(client, poi.id)).toEqual({
      address: 'offline map package San Francisco (sample)',
      cross_street: 'offline map package San Francisco (sample)',
      city: 'offline places',
      country: 'offline places',
    });
    const plain = await core.console['pois.add']({ clientId: client, fields: { name: 'Not geocoded', ...HAIGHT_ASHBURY, categories: [1], geocode: false } });
    expect(await sourcesOf(client, plain.id)).toBeNull();
  });
});

describe('street addresses beside an online geocoder', () => {
  const servers: Server[] = [];
  afterEach(() => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      server.close();
    }
  });
  /** A Nominatim stand-in on loopback: `answer` as its jsonv2 `address`, or no answer at all. */
  const nominatim = async (answer: Record<string, string> | 'never'): Promise<string> => {
    const server = createHttpServer((_req, res) => {
      if (answer === 'never') return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ place_id: 1, address: answer }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };
  const coreWith = (url: string, timeoutMs = 1000): TestCore => {
    core.close();
    core = testCore({ mapsDir: join(dir, 'maps'), geocoding: { nominatimUrl: url, timeoutMs } });
    return core;
  };

  it("keeps the online street and postal code, and fills the cross street it has none for from the package", async () => {
    coreWith(await nominatim({ house_number: '1500', road: 'Haight Street', postcode: '94117', city: 'San Francisco', country: 'United States', country_code: 'us' }));
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    const poi = await addGeocoded(client, HAIGHT_ASHBURY);
    expect(poi).toMatchObject({ address: '1500 Haight Street', postal_code: '94117', cross_street: 'Ashbury St', city: 'San Francisco' });
    expect(await sourcesOf(client, poi.id)).toEqual({
      address: 'Nominatim',
      postal_code: 'Nominatim',
      cross_street: 'offline map package San Francisco (sample)',
      city: 'offline places',
      country: 'offline places',
    });
  });

  it("takes the package's cross street from the roads the online address does not name", async () => {
    // Nominatim places the point on Ashbury Street: the crossing is then Haight St, the package's nearest road.
    coreWith(await nominatim({ house_number: '710', road: 'Ashbury Street', country_code: 'us' }));
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    // Before: cross_street 'Ashbury St', the address's own street.
    expect(await addGeocoded(client, HAIGHT_ASHBURY)).toMatchObject({ address: '710 Ashbury Street', cross_street: 'Haight St' });
  });

  it('fills the streets from the package when the online geocoder times out', async () => {
    coreWith(await nominatim('never'), 300);
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    expect(await addGeocoded(client, HAIGHT_ASHBURY)).toMatchObject({ address: 'Haight St', cross_street: 'Ashbury St' });
  });

  it("records the sources of an update's geocoded fields, the fields it changed only", async () => {
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    const poi = await addGeocoded(client, { lat: 37.7684, lng: -122.4413 });
    await core.console['pois.update']({ clientId: client, fields: { poi: poi.id, ...HAIGHT_ASHBURY, geocode: true } });
    const [moved] = await core.console['pois.history']({ clientId: client, poi: poi.id });
    expect(moved).toMatchObject({ op: 'update', fields: { address: [null, 'Haight St'], cross_street: [null, 'Ashbury St'] } });
    // The city and country were San Francisco and United States already: not written, not sourced.
    expect(moved!.geocoded).toEqual({ address: 'offline map package San Francisco (sample)', cross_street: 'offline map package San Francisco (sample)' });
  });
});

// A crossing in open sea (the places data names nothing there, so the package's city shows).
const LNG = -30.5;
const LAT = 0.5;
const M = 1 / 111_195; // degrees of latitude per metre
const east = (metres: number): number => LNG + metres * M;
const north = (metres: number): number => LAT + metres * M;

const collection = (features: Feature[]): FeatureCollection => ({ type: 'FeatureCollection', features });
const line = (properties: Record<string, string>, coords: Array<[number, number]>): Feature => ({ type: 'Feature', properties, geometry: { type: 'LineString', coordinates: coords } });
const point = (properties: Record<string, string>, lng: number, lat: number): Feature => ({ type: 'Feature', properties, geometry: { type: 'Point', coordinates: [lng, lat] } });

/** Rua Alfa runs east-west through the crossing, Rua Beta north-south; number 12 of Rua Alfa 3 m from the POI. */
const openMapTilesLayers = (): Record<string, FeatureCollection> => ({
  transportation_name: collection([
    line({ name: 'Rua Alfa', class: 'minor' }, [[east(-500), LAT], [east(500), LAT]]),
    line({ name: 'Rua Beta', class: 'minor' }, [[LNG, north(-500)], [LNG, north(500)]]),
    line({ name: 'Rua Gama', class: 'minor' }, [[east(-500), north(150)], [east(500), north(150)]]),
  ]),
  housenumber: collection([point({ housenumber: '12', postcode: '1100-148' }, east(40), north(5)), point({ housenumber: '14' }, east(70), north(5))]),
  place: collection([point({ name: 'Testville', class: 'town' }, east(300), north(300)), point({ name: 'Old Quarter', class: 'suburb' }, east(45), north(10))]),
});
/** The POI: 8 m north of Rua Alfa, 40 m east of Rua Beta, 3 m from number 12. */
const POI = { lat: north(8), lng: east(40) };
const Z = 14;

const gzipped = (tiles: ReturnType<typeof vectorTiles>) => tiles.map((t) => ({ ...t, data: gzipSync(t.data) }));
const around = (z = Z) => {
  const c = tileAt(LNG, LAT, z);
  return [-1, 0, 1].flatMap((dx) => [-1, 0, 1].map((dy) => ({ z, x: c.x + dx, y: c.y + dy })));
};

describe('street addresses from packages of the other schemas', () => {
  it('reads an OpenMapTiles MBTiles (gzipped tiles): street and number, cross street, city, postal code', async () => {
    const file = join(dir, 'omt.mbtiles');
    writeMbtiles(file, { format: 'pbf', name: 'Open Sea Town', tiles: gzipped(vectorTiles(openMapTilesLayers(), around())) });
    const pkg = await core.maps.importFile(file);
    expect(pkg.schema).toBe('openmaptiles');
    const client = core.clients.create({ name: 'c' }).client_id;
    const poi = await addGeocoded(client, POI);
    expect(poi).toMatchObject({ address: 'Rua Alfa 12', cross_street: 'Rua Beta', city: 'Testville', postal_code: '1100-148', country: null });
    expect(await sourcesOf(client, poi.id)).toEqual({
      address: 'offline map package Open Sea Town',
      cross_street: 'offline map package Open Sea Town',
      city: 'offline map package Open Sea Town',
      postal_code: 'offline map package Open Sea Town',
    });
  });

  it('gives the street without a number where no house number is within a few metres', async () => {
    const file = join(dir, 'omt.mbtiles');
    writeMbtiles(file, { format: 'pbf', name: 'Open Sea Town', tiles: vectorTiles(openMapTilesLayers(), around()) });
    await core.maps.importFile(file);
    const client = core.clients.create({ name: 'c' }).client_id;
    // 20 m from number 12 and from number 14 alike.
    expect(await addGeocoded(client, { lat: north(8), lng: east(55) })).toMatchObject({ address: 'Rua Alfa', cross_street: 'Rua Beta', postal_code: null });
  });

  it('reads a Protomaps basemap PMTiles', async () => {
    const layers = openMapTilesLayers();
    const file = join(dir, 'protomaps.pmtiles');
    const tiles = vectorTiles(
      {
        roads: layers.transportation_name!,
        places: collection([point({ name: 'Portville', kind: 'locality' }, east(200), north(200)), point({ name: 'Harbour', kind: 'neighbourhood' }, east(40), north(9))]),
        earth: collection([line({ kind: 'earth' }, [[east(-900), LAT], [east(900), LAT]])]),
      },
      around(15),
    );
    writePmtiles(file, { format: 'pbf', name: 'Protomaps Town', vectorLayers: ['roads', 'places', 'earth'], tiles });
    const pkg = await core.maps.importFile(file);
    expect(pkg.schema).toBe('protomaps');
    const client = core.clients.create({ name: 'c' }).client_id;
    expect(await addGeocoded(client, POI)).toMatchObject({ address: 'Rua Alfa', cross_street: 'Rua Beta', city: 'Portville' });
  });

  it('reads a package whose area crosses the antimeridian', async () => {
    const file = join(dir, 'fiji.mbtiles');
    const road = collection([line({ name: 'Date Line Road' }, [[179.98, -16.5], [179.9999, -16.5]])]);
    const c = tileAt(179.99, -16.5, Z);
    writeMbtiles(file, { format: 'pbf', name: 'Taveuni', bounds: [179.9, -16.6, -179.9, -16.4], tiles: vectorTiles({ transportation_name: road }, [{ z: Z, ...c }]) });
    await core.maps.importFile(file);
    const client = core.clients.create({ name: 'c' }).client_id;
    // Before: a west (179.9) past the east (-179.9) covered no point at all.
    expect(await addGeocoded(client, { lat: -16.50005, lng: 179.99 })).toMatchObject({ address: 'Date Line Road' });
  });

  it('keeps the places data city where it names one, and writes a name too long for the field cut to its limit', async () => {
    const file = join(dir, 'lisbon.mbtiles');
    // Lisbon, Praça do Comércio: the places data says Lisbon whatever the package's place says.
    const at = { lng: -9.1366, lat: 38.7075 };
    const long = `Rua ${'Muito '.repeat(60)}Comprida`;
    const layers = {
      transportation_name: collection([line({ name: long }, [[at.lng - 0.01, at.lat], [at.lng + 0.01, at.lat]])]),
      place: collection([point({ name: 'Not Lisbon', class: 'city' }, at.lng + 0.001, at.lat)]),
    };
    const c = tileAt(at.lng, at.lat, Z);
    writeMbtiles(file, { format: 'pbf', name: 'Lisbon', tiles: vectorTiles(layers, [{ z: Z, ...c }]) });
    await core.maps.importFile(file);
    const client = core.clients.create({ name: 'c' }).client_id;
    const poi = await addGeocoded(client, { lat: at.lat + 0.0001, lng: at.lng });
    expect(poi.city).toBe('Lisbon');
    // Before: a 372-character street written into a field of 255 characters.
    expect([...poi.address!]).toHaveLength(255);
    expect(long.startsWith(poi.address!)).toBe(true);
  });
});

describe('the street reader, bounded', () => {
  const geocoderOver = (c: TestCore) => new StreetGeocoder(c.maps);

  it('skips a tile over the byte limit, and counts it, without failing the POI', async () => {
    const file = join(dir, 'bomb.mbtiles');
    // A tile of 3 MiB once inflated (a few KiB gzipped): roads beside a huge property.
    const layers = { ...openMapTilesLayers(), filler: collection([point({ name: 'x'.repeat(3 * 1024 ** 2) }, LNG, LAT)]) };
    const big = gzipSync(vectorTiles(layers, [{ z: Z, ...tileAt(LNG, LAT, Z) }])[0]!.data);
    expect(big.byteLength).toBeLessThan(64 * 1024);
    writeMbtiles(file, { format: 'pbf', name: 'Bomb', tiles: [{ z: Z, ...tileAt(LNG, LAT, Z), data: big }] });
    await core.maps.importFile(file);
    const geocoder = geocoderOver(core);
    expect(await geocoder.reverse(POI.lat, POI.lng)).toEqual({});
    expect(geocoder.stats()).toMatchObject({ skippedTooBig: 1, decoded: 0 });
    expect(MAX_STREET_TILE_BYTES).toBeLessThan(3 * 1024 ** 2);
    // Through the core: the POI is saved, without a street.
    const client = core.clients.create({ name: 'c' }).client_id;
    expect(await addGeocoded(client, POI)).toMatchObject({ name: 'Spot', address: null });
  });

  it('skips a tile with too many features in the layers it reads, and counts it', async () => {
    const file = join(dir, 'crowded.mbtiles');
    const crowd = Array.from({ length: MAX_STREET_FEATURES + 1 }, (_, i) => point({ housenumber: String(i) }, east(-60 + (i % 200)), north(-100 + Math.floor(i / 200) * 2)));
    const layers = { ...openMapTilesLayers(), housenumber: collection(crowd) };
    writeMbtiles(file, { format: 'pbf', name: 'Crowded', tiles: vectorTiles(layers, [{ z: Z, ...tileAt(LNG, LAT, Z) }]) });
    await core.maps.importFile(file);
    const geocoder = geocoderOver(core);
    expect(await geocoder.reverse(POI.lat, POI.lng)).toEqual({});
    expect(geocoder.stats()).toMatchObject({ skippedTooManyFeatures: 1, decoded: 0 });
  });

  it("reads a feature whose geometry claims millions of points from a few bytes in time and memory bounded by its bytes", async () => {
    // A road of one point, then a ClosePath repeated 2^24 times before more bytes: 7 bytes that @mapbox/vector-tile's
    // loadGeometry turns into 16,777,216 points (2^27 times would be gigabytes).
    const pbf = new Pbf();
    pbf.writeMessage(
      3,
      (_: unknown, layer: Pbf) => {
        layer.writeVarintField(15, 2);
        layer.writeStringField(1, 'transportation_name');
        layer.writeMessage(
          2,
          (_f: unknown, feature: Pbf) => {
            feature.writePackedVarint(2, [0, 0]);
            feature.writeVarintField(3, 2);
            feature.writePackedVarint(4, [9, 50, 50, ((1 << 24) << 3) | 7, 9, 2, 2]);
          },
          null,
        );
        layer.writeStringField(3, 'name');
        layer.writeMessage(4, (_v: unknown, value: Pbf) => value.writeStringField(1, 'Hostile Road'), null);
        layer.writeVarintField(5, 4096);
      },
      null,
    );
    const c = tileAt(LNG, LAT, Z);
    const file = join(dir, 'hostile.mbtiles');
    writeMbtiles(file, { format: 'pbf', name: 'Hostile', tiles: [{ z: Z, ...c, data: pbf.finish() }] });
    await core.maps.importFile(file);
    const geocoder = geocoderOver(core);
    const started = performance.now();
    await geocoder.reverse(POI.lat, POI.lng);
    // Before: 16,777,216 points made, 6.9 s and 855 MiB of heap.
    expect(performance.now() - started).toBeLessThan(300);
    expect(geocoder.stats().decoded).toBe(1);
  });

  it('decodes each tile once for many nearby points (a cache of decoded tiles)', async () => {
    await importSample();
    const geocoder = geocoderOver(core);
    await geocoder.reverse(HAIGHT_ASHBURY.lat, HAIGHT_ASHBURY.lng);
    const first = geocoder.stats();
    // The street's tile, and the 3 × 3 around it where city labels are looked for.
    expect(first.decoded).toBeGreaterThan(0);
    for (let i = 1; i < 50; i++) await geocoder.reverse(HAIGHT_ASHBURY.lat + i * 1e-5, HAIGHT_ASHBURY.lng);
    const after = geocoder.stats();
    expect(after.decoded).toBe(first.decoded);
    expect(after.cacheHits).toBeGreaterThanOrEqual(first.cacheHits + 49 * first.decoded);
  });

  it('keeps fewer decoded tiles when their bytes pass the cache budget', async () => {
    await importSample();
    // The sample's tiles are 50-110 KiB: a budget of 100 KiB keeps one or two of them.
    const geocoder = new StreetGeocoder(core.maps, { cachedBytes: 100 * 1024 });
    await geocoder.reverse(HAIGHT_ASHBURY.lat, HAIGHT_ASHBURY.lng);
    const first = geocoder.stats().decoded;
    await geocoder.reverse(HAIGHT_ASHBURY.lat, HAIGHT_ASHBURY.lng);
    // Before (64 tiles kept whatever their size): none decoded again.
    expect(geocoder.stats().decoded).toBeGreaterThan(first);
  });
});

describe('imports and the /1/ API geocode through the same streets', () => {
  it('an import of a CSV with geocoding fills the streets offline', async () => {
    await importSample();
    const client = core.clients.create({ name: 'c' }).client_id;
    const csv = `name,lat,lng,categories,address\nCorner shop,${HAIGHT_ASHBURY.lat},${HAIGHT_ASHBURY.lng},1,\nPark bench,37.7684,-122.4413,1,\nOwn words,${HAIGHT_ASHBURY.lat},${HAIGHT_ASHBURY.lng},1,Our address\n`;
    const report = await core.importPois(client, Readable.from([Buffer.from(csv)]), 'csv', { geocode: true });
    expect(report).toMatchObject({ added: 3, refused: [] });
    const pois = await core.console['pois.search']({ clientId: client, filter: { total: 10 } });
    expect(pois).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'Corner shop', address: 'Haight St', cross_street: 'Ashbury St', city: 'San Francisco' }),
        expect.objectContaining({ name: 'Park bench', address: null, city: 'San Francisco' }),
        expect.objectContaining({ name: 'Own words', address: 'Our address', cross_street: 'Ashbury St' }),
      ]),
    );
    // Each row's history names where its geocoded fields came from, and only those the row left empty.
    const geocodedOf = async (name: string): Promise<unknown> => {
      const poi = pois.find((p) => p.name === name)!;
      const [created] = await core.console['pois.history']({ clientId: client, poi: poi.id });
      return created?.geocoded;
    };
    const sample = 'offline map package San Francisco (sample)';
    expect(await geocodedOf('Corner shop')).toMatchObject({ address: sample, cross_street: sample });
    const own = (await geocodedOf('Own words')) as Record<string, string>;
    expect(own).toMatchObject({ cross_street: sample });
    expect(own.address).toBeUndefined();
  });

  it('pois/add.json with geocode=true fills the streets offline', async () => {
    await importSample();
    const client = core.clients.create({ name: 'c' });
    const poi = await invokeApi(core, 'pois.add', { accessToken: client.admin_token }, { lat: HAIGHT_ASHBURY.lat, lng: HAIGHT_ASHBURY.lng, name: 'Via the API', categories: [1], geocode: true });
    expect(poi).toMatchObject({ address: 'Haight St', cross_street: 'Ashbury St' });
    const history = await invokeApi(core, 'pois.history', { accessToken: client.admin_token }, { poi: poi.id });
    expect(history[0]!.geocoded).toMatchObject({ address: 'offline map package San Francisco (sample)' });
  });
});
