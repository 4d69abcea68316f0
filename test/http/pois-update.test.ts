import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinnedClock } from '../support/core.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

let f: Fixture;
beforeAll(async () => {
  f = await poiFixture();
});
afterAll(() => f.t.close());

const update = (poi: unknown, fields: Record<string, string | number | boolean>, token = f.admin) =>
  f.t.get('/1/pois/update.json', { oauth_token: token, poi: poi as number, ...fields });

describe('update (GET /1/pois/update.json)', () => {
  it('changes only the supplied parameters and moves last_update, never registertime', async () => {
    const poi = await f.addPoi({ desc: 'Centre', phone: '123', elevation: 650 });
    f.t.core.clock.advance(5000);
    const r = await update(poi.id, { phone: '456', name: 'Sol' });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ ...poi, phone: '456', name: 'Sol', last_update: expect.any(String) });
    expect(r.json.registertime).toBe(poi.registertime);
    expect(Date.parse(r.json.last_update as string)).toBe(Date.parse(poi.last_update as string) + 5000);
  });

  it('deletes a value supplied empty, and refuses that for lat, lng, categories and name', async () => {
    const poi = await f.addPoi({ desc: 'Centre', twitter: '@sol', elevation: 650, accuracy: 3 });
    const r = await update(poi.id, { desc: '', twitter: '', elevation: '', accuracy: '' });
    expect(r.json).toMatchObject({ description: null, twitter: null, elevation: null, accuracy: null, name: poi.name });
    for (const field of ['lat', 'lng', 'categories', 'name']) {
      const bad = await update(poi.id, field === 'lat' ? { lat: '', lng: 1 } : field === 'lng' ? { lat: 1, lng: '' } : { [field]: '' });
      expect(bad.json, field).toMatchObject({ code: 400, description: 'EXCEPTION_INVALID_PARAMETER', parameter: field });
    }
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number })).json).toMatchObject({
      name: poi.name,
      latitude: poi.latitude,
      categories: poi.categories,
    });
  });

  it('refuses lat without lng and the reverse', async () => {
    const poi = await f.addPoi();
    expect((await update(poi.id, { lat: 10 })).json).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: 'lng' });
    expect((await update(poi.id, { lng: 10 })).json).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: 'lat' });
  });

  it('checks the same bounds as add', async () => {
    const poi = await f.addPoi();
    expect((await update(poi.id, { lat: 91, lng: 0 })).json).toMatchObject({ code: 400, parameter: 'lat' });
    expect((await update(poi.id, { postal_code: '1234567890123' })).json).toMatchObject({ code: 400, parameter: 'postal_code' });
    expect((await update(poi.id, { postal_code: '123456789012' })).status).toBe(200);
    expect((await update(poi.id, { categories: '424242' })).json).toMatchObject({ code: 404, parameter: 'categories' });
  });

  it('replaces the categories when given', async () => {
    const poi = await f.addPoi({ categories: '1,2' });
    const r = await update(poi.id, { categories: '3' });
    expect((r.json.categories as Array<{ Id: number }>).map((c) => c.Id)).toEqual([3]);
  });

  it('leaves last_update alone when nothing changes', async () => {
    const poi = await f.addPoi({ phone: '1' });
    f.t.core.clock.advance(1000);
    const r = await update(poi.id, { phone: '1', categories: '7' });
    expect(r.json.last_update).toBe(poi.last_update);
  });

  it('is for the administrator only; another client cannot see the POI', async () => {
    const poi = await f.addPoi();
    expect((await update(poi.id, { name: 'x' }, f.member)).json).toMatchObject({ code: 403, description: 'EXCEPTION_FORBIDDEN' });
    expect((await update(poi.id, { name: 'x' }, f.otherAdmin)).json).toMatchObject({ code: 404, description: 'EXCEPTION_NOT_FOUND' });
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number })).json.name).toBe(poi.name);
  });

  it('answers 404 for an unknown POI and 400 for a malformed id', async () => {
    expect((await update(999999, { name: 'x' })).json).toMatchObject({ code: 404, parameter: 'poi' });
    expect((await update('abc', { name: 'x' })).json).toMatchObject({ code: 400, parameter: 'poi' });
    expect((await update(1.5, { name: 'x' })).json).toMatchObject({ code: 400, parameter: 'poi' });
    expect((await f.t.get('/1/pois/update.json', { oauth_token: f.admin, name: 'x' })).json).toMatchObject({
      code: 400,
      description: 'EXCEPTION_MISSING_PARAMETER',
      parameter: 'poi',
    });
  });
});

describe('geocoding on add and update', () => {
  it('fills the unsupplied address fields with geocode=true (Madrid)', async () => {
    const poi = await f.addPoi({ geocode: true, city: 'Villa y Corte' });
    expect(poi).toMatchObject({ city: 'Villa y Corte', country: 'Spain' });
    const plain = await f.addPoi({ geocode: 'TRUE' });
    expect(plain).toMatchObject({ city: 'Madrid', country: 'Spain' });
  });

  it('does not geocode by default after 15/05/2013, nor with geocode=false', async () => {
    expect(await f.addPoi()).toMatchObject({ city: null, country: null });
    expect(await f.addPoi({ geocode: false })).toMatchObject({ city: null, country: null });
  });

  it('moves city and country with the POI, keeping supplied fields, and keeping old values where nothing is found', async () => {
    const poi = await f.addPoi({ geocode: true, address: 'Puerta del Sol 1', postal_code: '28013' });
    const paris = await update(poi.id, { lat: 48.8584, lng: 2.2945, geocode: true, address: 'Champ de Mars 5' });
    expect(paris.json).toMatchObject({ city: 'Paris', country: 'France', address: 'Champ de Mars 5', postal_code: '28013' });
    const ocean = await update(poi.id, { lat: 35, lng: -40, geocode: true });
    expect(ocean.json).toMatchObject({ latitude: 35, longitude: -40, city: 'Paris', country: 'France' });
    const notAsked = await update(poi.id, { lat: 40.4169, lng: -3.7035 });
    expect(notAsked.json).toMatchObject({ city: 'Paris', country: 'France' });
  });
});

describe('the geocode default before 15/05/2013 (docs/api-spec.md#geocoding)', () => {
  it('geocodes by default until the day before, and not from that day on (UTC)', async () => {
    const clock = new PinnedClock(Date.UTC(2013, 4, 14, 23, 59, 59, 999));
    const old = await poiFixture({ clock });
    try {
      expect(await old.addPoi()).toMatchObject({ city: 'Madrid', country: 'Spain' });
      expect(await old.addPoi({ geocode: false })).toMatchObject({ city: null });
      clock.advance(1);
      expect(await old.addPoi()).toMatchObject({ city: null, country: null });
      expect(await old.addPoi({ geocode: true })).toMatchObject({ city: 'Madrid' });
    } finally {
      await old.t.close();
    }
  });
});
