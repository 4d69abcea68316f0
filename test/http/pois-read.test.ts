import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metresBetween } from '../../main/core/pois/geo.js';
import type { MapView } from '../../shared/contract.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

let f: Fixture;
const SOL = { lat: 40.4169, lng: -3.7035 };
let ids: Record<string, number> = {};

beforeAll(async () => {
  f = await poiFixture();
  const places: Array<[string, number, number, string, Record<string, string>]> = [
    ['Sol', 40.4169, -3.7035, '7', { city: 'Madrid', country: 'Spain', postal_code: '28013', desc: 'Kilometre zero' }],
    ['Prado', 40.4138, -3.6921, '6', { city: 'Madrid', country: 'Spain', postal_code: '28014', desc: 'Art museum' }],
    ['Retiro', 40.4153, -3.6845, '8', { city: 'madrid', country: 'Spain', postal_code: '28009' }],
    ['Toledo cathedral', 39.8569, -4.0235, '24,7', { city: 'Toledo', country: 'Spain' }],
    ['Eiffel', 48.8584, 2.2945, '7', { city: 'Paris', country: 'France', desc: '100% iron_work' }],
  ];
  ids = {};
  for (const [name, lat, lng, categories, extra] of places) {
    ids[name] = (await f.addPoi({ name, lat, lng, categories, ...extra })).id as number;
  }
  await f.addPoi({ name: 'Sol of Beta', lat: 40.4169, lng: -3.7035 }, f.otherAdmin);
});
afterAll(() => f.t.close());

const names = (body: unknown) => (body as Array<{ name: string }>).map((p) => p.name);

describe('get', () => {
  it('returns the POI to any token of its client, 404 to another client', async () => {
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.member, poi: ids.Sol! })).json).toMatchObject({ name: 'Sol', city: 'Madrid' });
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.otherAdmin, poi: ids.Sol! })).json).toMatchObject({ code: 404 });
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.admin })).json).toMatchObject({ code: 400, parameter: 'poi' });
  });
});

describe('get_near', () => {
  it('returns the POIs within the radius, nearest first, by great-circle distance', async () => {
    const r = await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, lat: SOL.lat, lng: SOL.lng, radius: 2000 });
    expect(names(r.body)).toEqual(['Sol', 'Prado', 'Retiro']);
    const dRetiro = metresBetween(SOL.lat, SOL.lng, 40.4153, -3.6845);
    expect(dRetiro).toBeGreaterThan(1500);
    const justIn = await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, ...SOL, radius: Math.ceil(dRetiro) });
    expect(names(justIn.body)).toContain('Retiro');
    const justOut = await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, ...SOL, radius: Math.floor(dRetiro) });
    expect(names(justOut.body)).not.toContain('Retiro');
  });

  it('caps the answer at total and filters by categories', async () => {
    expect(names((await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, ...SOL, radius: 1e6, total: 2 })).body)).toEqual(['Sol', 'Prado']);
    expect(names((await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, ...SOL, radius: 2e6, categories: '7' })).body)).toEqual([
      'Sol',
      'Toledo cathedral',
      'Eiffel',
    ]);
  });

  it('reaches across the whole Earth and never shows another client', async () => {
    const all = await f.t.get('/1/pois/get_near.json', { oauth_token: f.member, lat: -40.4, lng: 176.3, radius: 20_037_509 });
    expect(names(all.body).sort()).toEqual(['Eiffel', 'Prado', 'Retiro', 'Sol', 'Toledo cathedral']);
  });

  it('refuses a missing or bad radius, position or total', async () => {
    const bad = async (fields: Record<string, string | number>, parameter: string) =>
      expect((await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, ...SOL, radius: 100, ...fields })).json).toMatchObject({ code: 400, parameter });
    await bad({ radius: 0 }, 'radius');
    await bad({ radius: -5 }, 'radius');
    await bad({ radius: 20_037_510 }, 'radius');
    await bad({ lat: 95 }, 'lat');
    await bad({ total: 0 }, 'total');
    await bad({ total: 1001 }, 'total');
    const r = await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, lat: 1, lng: 1 });
    expect(r.json).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: 'radius' });
  });
});

describe('get_where', () => {
  const where = (fields: Record<string, string | number>) => f.t.get('/1/pois/get_where.json', { oauth_token: f.admin, ...fields });

  it('filters by city (any case), country, postal code and ids', async () => {
    expect(names((await where({ city: 'MADRID' })).body)).toEqual(['Sol', 'Prado', 'Retiro']);
    expect(names((await where({ country: 'France' })).body)).toEqual(['Eiffel']);
    expect(names((await where({ postal_code: '28014' })).body)).toEqual(['Prado']);
    expect(names((await where({ pois: `${ids.Eiffel},${ids.Sol}` })).body)).toEqual(['Sol', 'Eiffel']);
    expect(names((await where({ categories: '24' })).body)).toEqual(['Toledo cathedral']);
    expect(names((await where({ city: 'Madrid', categories: '6,8' })).body)).toEqual(['Prado', 'Retiro']);
  });

  it('searches q in name and description, taking % and _ literally', async () => {
    expect(names((await where({ q: 'museum' })).body)).toEqual(['Prado']);
    expect(names((await where({ q: 'cathedral' })).body)).toEqual(['Toledo cathedral']);
    expect(names((await where({ q: '100%' })).body)).toEqual(['Eiffel']);
    expect(names((await where({ q: 'iron_' })).body)).toEqual(['Eiffel']);
    expect(names((await where({ q: '%' })).body)).toEqual(['Eiffel']);
    expect(names((await where({ q: "'; DROP TABLE pois; --" })).body)).toEqual([]);
  });

  it('caps at total, and shows another client nothing of this one', async () => {
    expect(names((await where({ total: 2 })).body)).toEqual(['Sol', 'Prado']);
    const other = await f.t.get('/1/pois/get_where.json', { oauth_token: f.otherAdmin, city: 'Madrid' });
    expect(other.body).toEqual([]);
    expect(names((await f.t.get('/1/pois/get_where.json', { oauth_token: f.otherAdmin })).body)).toEqual(['Sol of Beta']);
  });
});

describe('delete', () => {
  it('is for the administrator of the client only', async () => {
    const poi = await f.addPoi({ name: 'Doomed' });
    const del = (token: string) => f.t.get('/1/pois/delete.json', { oauth_token: token, poi: poi.id as number });
    expect((await del(f.member)).json).toMatchObject({ code: 403 });
    expect((await del(f.otherAdmin)).json).toMatchObject({ code: 404 });
    expect((await del(f.admin)).body).toEqual({ code: 200, description: 'OK' });
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number })).json).toMatchObject({ code: 404 });
    expect((await del(f.admin)).json).toMatchObject({ code: 404 });
    const near = await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, ...SOL, radius: 10 });
    expect(names(near.body)).toEqual(['Sol']);
  });
});

describe('map view (core)', () => {
  it('shows the POIs inside a box one by one, also across the antimeridian, and never another client', async () => {
    const view = async (box: { south: number; north: number; west: number; east: number }, zoom: number) =>
      (await f.t.core.console['pois.map']({ clientId: f.apiKey, ...box, zoom })) as MapView;
    const madrid = await view({ south: 40.41, north: 40.42, west: -3.71, east: -3.68 }, 18);
    expect(madrid.points.map((p) => p.name).sort()).toEqual(['Prado', 'Retiro', 'Sol']);
    expect(madrid.points.every((p) => p.count === 1 && p.poi !== undefined)).toBe(true);
    expect((await view({ south: -90, north: 90, west: 170, east: -170 }, 2)).total).toBe(0);
    // West of 170 east to 5 crosses the antimeridian: the box from -180 to 5 holds all five.
    expect((await view({ south: -90, north: 90, west: 170, east: 5 }, 2)).total).toBe(5);
    expect((await view({ south: -90, north: 90, west: -10, east: 5 }, 2)).total).toBe(5);
  });
});
