import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEXT_LIMITS } from '../../shared/schemas/pois.js';
import { formatIso } from '../../shared/time.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

let f: Fixture;
beforeAll(async () => {
  f = await poiFixture();
});
afterAll(() => f.t.close());

const add = (fields: Record<string, string | number | boolean>, token = f.admin) =>
  f.t.get('/1/pois/add.json', { oauth_token: token, lat: 40.4169, lng: -3.7035, name: 'Sol', categories: 7, ...fields });

const refused = async (fields: Record<string, string | number | boolean>, parameter: string, status = 400) => {
  const before = f.t.core.db.prepare('SELECT count(*) FROM pois').pluck().get();
  const r = await add(fields);
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.json).toMatchObject({ code: status, parameter });
  expect(f.t.core.db.prepare('SELECT count(*) FROM pois').pluck().get()).toBe(before);
};

describe('add (GET /1/pois/add.json)', () => {
  it('replies the full POI (docs/api-spec.md#the-poi-reply), every field present', async () => {
    const r = await add({ name: 'Museo del Prado', desc: 'Art museum', categories: '6,7', elevation: 667, accuracy: 5, vaccuracy: 10, phone: '+34 913 30 28 00', twitter: '#prado' });
    expect(r.status).toBe(200);
    const now = formatIso(f.t.core.clock.now());
    expect(r.json).toEqual({
      id: expect.any(Number),
      uuid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      name: 'Museo del Prado',
      description: 'Art museum',
      latitude: 40.4169,
      longitude: -3.7035,
      elevation: 667,
      accuracy: 5,
      vaccuracy: 10,
      registertime: now,
      categories: [
        { Id: 6, Description: 'Museum', is_system_category: true },
        { Id: 7, Description: 'Monument and landmark', is_system_category: true },
      ],
      address: null,
      cross_street: null,
      city: null,
      country: null,
      postal_code: null,
      phone: '+34 913 30 28 00',
      twitter: '#prado',
      last_update: now,
      warnings: { closed: 0, duplicated: 0, wrong_indicator: 0, wrong_info: 0 },
    });
  });

  it('lets a member token add, over POST and multipart too', async () => {
    const r = await f.t.post('/1/pois/add.json', { oauth_token: f.member, lat: '40.0', lng: '-3.70', name: 'By member', categories: 1 }, 'multipart');
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ latitude: 40, longitude: -3.7 });
  });

  it('reads decimals as 40.0, -3.7 and 1.0E-4', async () => {
    const r = await add({ lat: '1.0E-4', lng: '-3.7', accuracy: '2.5E1' });
    expect(r.json).toMatchObject({ latitude: 0.0001, longitude: -3.7, accuracy: 25 });
  });

  it('takes lat in [-90, 90] and lng in [-180, 180], bounds included', async () => {
    for (const [lat, lng] of [[90, 180], [-90, -180], ['90.0', '-180.0']]) {
      expect((await add({ lat: lat!, lng: lng! })).status).toBe(200);
    }
    await refused({ lat: 90.0001 }, 'lat');
    await refused({ lat: -90.0001 }, 'lat');
    await refused({ lng: 180.0001 }, 'lng');
    await refused({ lng: -180.0001 }, 'lng');
    await refused({ lat: 'north' }, 'lat');
    await refused({ lat: '1e999' }, 'lat');
    await refused({ lng: 'NaN' }, 'lng');
  });

  it('keeps each string within its maximum length, counted in characters', async () => {
    const wire: Record<keyof typeof TEXT_LIMITS, string> = {
      name: 'name', desc: 'desc', address: 'address', cross_street: 'cross_street', city: 'city',
      country: 'country', postal_code: 'postal_code', phone: 'phone', twitter: 'twitter',
    };
    for (const [field, max] of Object.entries(TEXT_LIMITS) as Array<[keyof typeof TEXT_LIMITS, number]>) {
      const atLimit = await add({ [wire[field]]: 'é'.repeat(max) });
      expect(atLimit.status, field).toBe(200);
      await refused({ [wire[field]]: 'é'.repeat(max + 1) }, field);
    }
  });

  it('needs accuracy and vaccuracy of 0 or more, and a sane elevation', async () => {
    expect((await add({ accuracy: 0, vaccuracy: 0, elevation: -430.5 })).status).toBe(200);
    await refused({ accuracy: -1 }, 'accuracy');
    await refused({ vaccuracy: -0.5 }, 'vaccuracy');
    await refused({ elevation: 'high' }, 'elevation');
  });

  it('requires lat, lng, name and categories', async () => {
    for (const field of ['lat', 'lng', 'name', 'categories']) {
      const fields: Record<string, string | number> = { oauth_token: f.admin, lat: 1, lng: 1, name: 'n', categories: 1 };
      delete fields[field];
      const r = await f.t.get('/1/pois/add.json', fields);
      expect(r.json, field).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: field });
    }
    await refused({ name: '' }, 'name');
    await refused({ name: '   ' }, 'name');
    await refused({ categories: '' }, 'categories');
  });

  it('accepts only existing categories of this client or system ones', async () => {
    const own = await f.t.get('/1/pois/categories/add.json', { oauth_token: f.admin, desc: 'Tapas' });
    const theirs = await f.t.get('/1/pois/categories/add.json', { oauth_token: f.otherAdmin, desc: 'Theirs' });
    expect((await add({ categories: `1,${own.json.Id as number}` })).status).toBe(200);
    await refused({ categories: String(theirs.json.Id) }, 'categories', 404);
    await refused({ categories: '99999' }, 'categories', 404);
    await refused({ categories: '1,x' }, 'categories');
    await refused({ categories: '1,,2' }, 'categories');
    await refused({ categories: '-3' }, 'categories');
    await refused({ categories: '1.5' }, 'categories');
    const deleted = await f.t.get('/1/pois/categories/add.json', { oauth_token: f.admin, desc: 'Gone' });
    await f.t.get('/1/pois/categories/delete.json', { oauth_token: f.admin, category: deleted.json.Id as number });
    await refused({ categories: String(deleted.json.Id) }, 'categories', 404);
  });

  it('lists each category once even when named twice', async () => {
    const r = await add({ categories: '1,1,2' });
    expect((r.json.categories as Array<{ Id: number }>).map((c) => c.Id)).toEqual([1, 2]);
  });

  it('refuses a bad geocode value', async () => {
    await refused({ geocode: 'yes' }, 'geocode');
  });

  it('needs a valid token of the client', async () => {
    expect((await add({}, 'nope')).json).toMatchObject({ code: 401, description: 'EXCEPTION_INVALID_TOKEN' });
    const r = await f.t.get('/1/pois/add.json', { lat: 1, lng: 1, name: 'n', categories: 1 });
    expect(r.json).toMatchObject({ code: 401, description: 'EXCEPTION_TOKEN_REQUIRED' });
  });
});
