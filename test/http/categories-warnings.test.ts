import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_CATEGORIES } from '../../shared/system-categories.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

let f: Fixture;
beforeAll(async () => {
  f = await poiFixture();
});
afterAll(() => f.t.close());

const cat = (op: string, fields: Record<string, string | number | boolean>, token = f.admin) =>
  f.t.get(`/1/pois/categories${op}.json`, { oauth_token: token, ...fields });

describe('categories', () => {
  it('lists the client own categories, and the system ones when asked', async () => {
    const own = await cat('/add', { desc: 'Tapas bars' });
    expect(own.json).toEqual({ Id: expect.any(Number), Description: 'Tapas bars', is_system_category: false });
    expect((await cat('', {}, f.member)).body).toEqual([own.json]);
    const all = (await cat('', { include_system_categories: true })).body as Array<{ Id: number; is_system_category: boolean }>;
    expect(all.length).toBe(SYSTEM_CATEGORIES.length + 1);
    expect(all.filter((c) => c.is_system_category).length).toBe(SYSTEM_CATEGORIES.length);
    expect((await cat('', {}, f.otherAdmin)).body).toEqual([]);
  });

  it('updates and deletes own categories; POIs keep a deleted category', async () => {
    const c = (await cat('/add', { desc: 'Kiosk' })).json;
    const poi = await f.addPoi({ categories: String(c.Id) });
    expect((await cat('/update', { category: c.Id as number, desc: 'Newsstand' })).json).toEqual({ ...c, Description: 'Newsstand' });
    expect((await cat('/delete', { category: c.Id as number })).body).toEqual({ code: 200, description: 'OK' });
    expect(((await cat('', {})).body as Array<{ Id: number }>).map((x) => x.Id)).not.toContain(c.Id);
    const kept = await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number });
    expect(kept.json.categories).toEqual([{ Id: c.Id, Description: 'Newsstand', is_system_category: false }]);
    expect((await cat('/update', { category: c.Id as number, desc: 'Again' })).json).toMatchObject({ code: 404 });
  });

  it('refuses changes to system categories, other clients categories, and by members', async () => {
    expect((await cat('/update', { category: 1, desc: 'Mine now' })).json).toMatchObject({ code: 403, description: 'EXCEPTION_FORBIDDEN' });
    expect((await cat('/delete', { category: 1 })).json).toMatchObject({ code: 403 });
    const theirs = (await cat('/add', { desc: 'Theirs' }, f.otherAdmin)).json;
    expect((await cat('/update', { category: theirs.Id as number, desc: 'x' })).json).toMatchObject({ code: 404 });
    expect((await cat('/delete', { category: theirs.Id as number })).json).toMatchObject({ code: 404 });
    expect((await cat('/add', { desc: 'By member' }, f.member)).json).toMatchObject({ code: 403 });
    expect(((await cat('', { include_system_categories: true })).body as Array<{ Id: number; Description: string }>)[0]).toMatchObject({
      Id: 1,
      Description: 'Restaurant',
    });
  });

  it('needs a non-empty description of at most 100 characters', async () => {
    expect((await cat('/add', { desc: '' })).json).toMatchObject({ code: 400, parameter: 'desc' });
    expect((await cat('/add', {})).json).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: 'desc' });
    expect((await cat('/add', { desc: 'x'.repeat(101) })).json).toMatchObject({ code: 400, parameter: 'desc' });
    expect((await cat('/add', { desc: 'x'.repeat(100) })).status).toBe(200);
    expect((await cat('/update', { desc: 'x' })).json).toMatchObject({ code: 400, parameter: 'category' });
  });
});

describe('warnings', () => {
  const warn = (fields: Record<string, string | number>, token = f.member) => f.t.get('/1/pois/warnings/add.json', { oauth_token: token, ...fields });

  it('any user reports; the POI counts open reports of each type', async () => {
    const poi = await f.addPoi();
    const closed = await warn({ poi: poi.id as number, type: 'closed' });
    expect(closed.json).toEqual({
      id: expect.any(Number),
      poi_id: poi.id,
      type: 'CLOSED',
      user_id: f.memberId,
      timestamp: expect.stringMatching(/\+00:00$/),
      data: null,
    });
    const moved = await warn({ poi: poi.id as number, type: 'WRONG_INDICATOR', lat: 40.5, lng: -3.6, accuracy: 4, name: 'ignored' });
    expect(moved.json.data).toMatchObject({ latitude: 40.5, longitude: -3.6, accuracy: 4, name: null, categories: [] });
    const info = await warn({ poi: poi.id as number, type: 'WRONG_INFO', name: 'Real name', categories: '1,2', desc: '' }, f.admin);
    expect(info.json).toMatchObject({
      user_id: null,
      data: { name: 'Real name', categories: [{ Id: 1, Description: 'Restaurant' }, { Id: 2, Description: 'Café and bar' }], description: null },
    });
    await warn({ poi: poi.id as number, type: 'CLOSED' });
    const now = await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number });
    expect(now.json.warnings).toEqual({ closed: 2, duplicated: 0, wrong_indicator: 1, wrong_info: 1 });
  });

  it('lists open reports grouped with the POI as it is now', async () => {
    const poi = await f.addPoi({ name: 'Listed' });
    await warn({ poi: poi.id as number, type: 'DUPLICATED' });
    await warn({ poi: poi.id as number, type: 'CLOSED' });
    const list = await f.t.get('/1/pois/warnings.json', { oauth_token: f.member, poi: String(poi.id) });
    expect(list.body).toEqual([
      {
        current: expect.objectContaining({ id: poi.id, name: 'Listed', warnings: expect.objectContaining({ closed: 1, duplicated: 1, wrong_indicator: 0, wrong_info: 0 }) }),
        warnings: [expect.objectContaining({ type: 'DUPLICATED' }), expect.objectContaining({ type: 'CLOSED' })],
      },
    ]);
    const onlyClosed = await f.t.get('/1/pois/warnings.json', { oauth_token: f.member, poi: String(poi.id), type: 'closed' });
    expect((onlyClosed.body as Array<{ warnings: unknown[] }>)[0]!.warnings).toHaveLength(1);
    expect((await f.t.get('/1/pois/warnings.json', { oauth_token: f.otherAdmin })).body).toEqual([]);
  });

  it('the administrator deletes processed reports; they stop counting', async () => {
    const poi = await f.addPoi();
    await warn({ poi: poi.id as number, type: 'CLOSED' });
    await warn({ poi: poi.id as number, type: 'DUPLICATED' });
    const del = (fields: Record<string, string | number>, token = f.admin) => f.t.get('/1/pois/warnings/delete.json', { oauth_token: token, poi: poi.id as number, ...fields });
    expect((await del({ type: 'CLOSED' }, f.member)).json).toMatchObject({ code: 403 });
    expect((await del({ type: 'CLOSED' }, f.otherAdmin)).json).toMatchObject({ code: 404 });
    expect((await del({ type: 'CLOSED' })).body).toEqual({ code: 200, description: 'OK' });
    const after = await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number });
    expect(after.json.warnings).toEqual({ closed: 0, duplicated: 1, wrong_indicator: 0, wrong_info: 0 });
    await del({});
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number })).json.warnings).toMatchObject({ duplicated: 0 });
  });

  it('refuses bad reports and reports on POIs it cannot see', async () => {
    const poi = await f.addPoi();
    expect((await warn({ poi: poi.id as number, type: 'ANGRY' })).json).toMatchObject({ code: 400, parameter: 'type' });
    expect((await warn({ poi: poi.id as number })).json).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: 'type' });
    expect((await warn({ poi: poi.id as number, type: 'WRONG_INDICATOR', lat: 40 })).json).toMatchObject({ code: 400, parameter: 'lng' });
    expect((await warn({ poi: poi.id as number, type: 'WRONG_INDICATOR', lat: 100, lng: 0 })).json).toMatchObject({ code: 400, parameter: 'lat' });
    expect((await warn({ poi: poi.id as number, type: 'WRONG_INFO', categories: '9999' })).json).toMatchObject({ code: 404, parameter: 'categories' });
    expect((await warn({ poi: poi.id as number, type: 'CLOSED' }, f.otherAdmin)).json).toMatchObject({ code: 404, parameter: 'poi' });
    expect((await warn({ poi: 999999, type: 'CLOSED' })).json).toMatchObject({ code: 404 });
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number })).json.warnings).toEqual({
      closed: 0,
      duplicated: 0,
      wrong_indicator: 0,
      wrong_info: 0,
    });
  });

  it('a deleted POI takes its reports with it', async () => {
    const poi = await f.addPoi();
    await warn({ poi: poi.id as number, type: 'CLOSED' });
    await f.t.get('/1/pois/delete.json', { oauth_token: f.admin, poi: poi.id as number });
    expect(f.t.core.db.prepare('SELECT count(*) FROM warnings WHERE poi_id = ?').pluck().get(poi.id)).toBe(0);
  });
});
