import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poiFixture, type Fixture } from '../support/fixture.js';

let f: Fixture;
beforeAll(async () => {
  f = await poiFixture();
});
afterAll(() => f.t.close());

/** A spot no other test of this file uses, so that only its own POIs are near. */
const PLAZA = { lat: 40.4155, lng: -3.7074 };
/** The keys of the POI reply (docs/api-spec.md#the-poi-reply; uuid is this service's own), the body old clients parse. */
const POI_KEYS = [
  'id', 'uuid', 'name', 'description', 'latitude', 'longitude', 'elevation', 'accuracy', 'vaccuracy', 'registertime', 'categories',
  'address', 'cross_street', 'city', 'country', 'postal_code', 'phone', 'twitter', 'last_update', 'warnings',
];
const pois = () => Number(f.t.core.db.prepare('SELECT count(*) FROM pois').pluck().get());

describe('add.json flags possible duplicates in a header, never in the body, never refusing', () => {
  it('replies as before, with no header, when nothing similar is near', async () => {
    const r = await f.t.get('/1/pois/add.json', { oauth_token: f.admin, ...PLAZA, name: 'Café Plaza Mayor', categories: 2 });
    expect(r.status).toBe(200);
    expect(Object.keys(r.json).sort()).toEqual([...POI_KEYS].sort());
    expect(r.headers.get('x-possible-duplicates')).toBeNull();
  });

  it('adds a similar name 20 m away all the same, the same body, and names the POI it may duplicate', async () => {
    const first = (await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, ...PLAZA, radius: 1 })).body as Array<{ id: number }>;
    const before = pois();
    // 20 m north, as a member's phone sends it (POST, multipart).
    // Not asked: no check, no header (old clients never read it, and do not pay for it).
    const unasked = await f.t.get('/1/pois/add.json', { oauth_token: f.admin, lat: PLAZA.lat + 30 / 111_195, lng: PLAZA.lng, name: 'Cafe Plaza Mayor', categories: 2 });
    expect(unasked.status).toBe(200);
    expect(unasked.headers.get('x-possible-duplicates')).toBeNull();
    f.t.core.console['pois.delete']({ clientId: f.apiKey, poi: unasked.json.id as number });
    const r = await f.t.post('/1/pois/add.json', { oauth_token: f.member, lat: PLAZA.lat + 20 / 111_195, lng: PLAZA.lng, name: 'cafe plaza mayor!', categories: '2', duplicates: 'true' }, 'multipart');
    expect(r.status).toBe(200);
    expect(pois()).toBe(before + 1);
    expect(Object.keys(r.json).sort()).toEqual([...POI_KEYS].sort());
    expect(r.json).toMatchObject({ name: 'cafe plaza mayor!', categories: [{ Id: 2, Description: 'Café and bar', is_system_category: true }] });
    expect(r.headers.get('x-possible-duplicates')).toBe(String(first[0]!.id));
    // A third at the first spot lists both, nearest first.
    const third = await f.t.get('/1/pois/add.json', { oauth_token: f.admin, ...PLAZA, name: 'CAFÉ PLAZA MAYOR', categories: 2, duplicates: true });
    expect(third.headers.get('x-possible-duplicates')).toBe(`${first[0]!.id},${r.json.id as number}`);
  });

  it("does not flag another client's POI, nor a different name at the same spot", async () => {
    const theirs = await f.t.get('/1/pois/add.json', { oauth_token: f.otherAdmin, ...PLAZA, name: 'Café Plaza Mayor', categories: 2, duplicates: true });
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('x-possible-duplicates')).toBeNull();
    const other = await f.t.get('/1/pois/add.json', { oauth_token: f.admin, ...PLAZA, name: 'Farmacia Mayor', categories: 12, duplicates: true });
    expect(other.headers.get('x-possible-duplicates')).toBeNull();
  });

  it('describes the header in the OpenAPI document', async () => {
    const doc = (await f.t.get('/1/openapi.json', {})).json as { paths: Record<string, Record<string, { responses: Record<string, { headers?: object }> }>> };
    expect(doc.paths['/pois/add.json']!['get']!.responses['200']!.headers).toHaveProperty('X-Possible-Duplicates');
  });
});

describe('categories of one name are refused: 409 EXCEPTION_ALREADY_EXISTS naming desc', () => {
  const cat = (op: string, fields: Record<string, string | number>, token = f.admin) => f.t.get(`/1/pois/categories${op}.json`, { oauth_token: token, ...fields });

  it('on add, against its own categories and the system ones, case and accents folded', async () => {
    expect((await cat('/add', { desc: 'Churrerías' })).status).toBe(200);
    for (const desc of ['churrerias', ' CHURRERÍAS ', 'museum', 'CAFE AND BAR']) {
      const r = await cat('/add', { desc });
      expect(r.status, desc).toBe(409);
      expect(r.json).toMatchObject({ code: 409, description: 'EXCEPTION_ALREADY_EXISTS', parameter: 'desc' });
    }
    expect((await cat('/add', { desc: 'churrerias' }, f.otherAdmin)).status).toBe(200);
  });

  it('on rename, unless it is the category itself', async () => {
    const a = (await cat('/add', { desc: 'Heladerías' })).json as { Id: number };
    const b = (await cat('/add', { desc: 'Horchaterías' })).json as { Id: number };
    const r = await cat('/update', { category: b.Id, desc: 'heladerias' });
    expect(r.status).toBe(409);
    expect(r.json).toMatchObject({ code: 409, description: 'EXCEPTION_ALREADY_EXISTS', parameter: 'desc' });
    expect((await cat('/update', { category: a.Id, desc: 'HELADERÍAS' })).json).toMatchObject({ Id: a.Id, Description: 'HELADERÍAS' });
  });
});
