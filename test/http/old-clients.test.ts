import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testCore } from '../support/core.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

/**
 * What the original platform's Android SDK sends and parses (docs/api-spec.md#wire-habits,
 * docs/api-spec.md#replies-old-clients-parse), over a real listener.
 */
let f: Fixture;
const ids: Record<string, number> = {};

beforeAll(async () => {
  f = await poiFixture();
  const places: Array<[string, Record<string, string>]> = [
    ['Ñandú park', { city: 'Ávila', country: 'España', postal_code: 'AB-12', desc: 'Aves: ÑANDÚ y emú' }],
    ['Straße cafe', { city: 'München', country: 'Deutschland' }],
    ['Αθήνα view', { city: 'Αθήνα', country: 'Ελλάδα' }],
    ['Plain', { city: 'Avila', country: 'Spain', desc: '100% pure_water' }],
  ];
  for (const [name, extra] of places) ids[name] = (await f.addPoi({ name, ...extra })).id as number;
});
afterAll(() => f.t.close());

const names = (body: unknown): string[] => (body as Array<{ name: string }>).map((p) => p.name).sort();
const where = async (fields: Record<string, string>) => names((await f.t.get('/1/pois/get_where.json', { oauth_token: f.member, ...fields })).body);

describe('text filters fold case in every script, and accents', () => {
  it('q matches name or description whatever the case and accents', async () => {
    expect(await where({ q: 'ñandú' })).toEqual(['Ñandú park']);
    expect(await where({ q: 'NANDU' })).toEqual(['Ñandú park']);
    expect(await where({ q: 'emu' })).toEqual(['Ñandú park']);
    expect(await where({ q: 'STRASSE' })).toEqual(['Straße cafe']);
    expect(await where({ q: 'ΑΘΗΝΑ' })).toEqual(['Αθήνα view']);
    // Still a literal substring: % and _ are characters, not wildcards.
    expect(await where({ q: '100% PURE_' })).toEqual(['Plain']);
    expect(await where({ q: '%' })).toEqual(['Plain']);
  });

  it('city, country and postal_code match exactly, folded', async () => {
    expect(await where({ city: 'ávila' })).toEqual(['Plain', 'Ñandú park']);
    expect(await where({ city: 'AVILA', country: 'españa' })).toEqual(['Ñandú park']);
    expect(await where({ country: 'ESPAÑA' })).toEqual(['Ñandú park']);
    expect(await where({ city: 'münchen' })).toEqual(['Straße cafe']);
    expect(await where({ postal_code: 'ab-12' })).toEqual(['Ñandú park']);
    expect(await where({ city: 'Ávil' })).toEqual([]);
  });

  it('exact filters still use their index, in the SQL the store really runs', () => {
    // A fresh core: its store prepares each filter shape's statement on first use.
    const core = testCore();
    const seen: string[] = [];
    const prepare = core.db.prepare.bind(core.db);
    const spy = vi.spyOn(core.db, 'prepare').mockImplementation(((sql: string) => (seen.push(sql), prepare(sql))) as typeof core.db.prepare);
    try {
      const client = core.clients.create({ name: 'Fresh' }).client_id;
      for (const [field, index] of [['city', 'pois_by_city'], ['country', 'pois_by_country'], ['postal_code', 'pois_by_postal_code']] as const) {
        seen.length = 0;
        core.queries.where(client, { [field]: 'x' });
        const sql = seen.find((q) => q.includes(`${field}_key`));
        expect(sql, `the store prepared no statement for ${field}`).toBeDefined();
        const plan = (prepare(`EXPLAIN QUERY PLAN ${sql!}`).all(client, 'x', 1) as Array<{ detail: string }>).map((p) => p.detail).join('\n');
        expect(plan).toMatch(new RegExp(`USING (COVERING )?INDEX ${index} \\(client_id=\\? AND ${field}_key=\\?\\)`));
      }
    } finally {
      spy.mockRestore();
      core.close();
    }
  });
});

interface Report {
  id: number;
  poi_id: number;
  type: string;
  data: Record<string, unknown> | null;
}

describe('warning reports carry proposals in the POI reply shape', () => {
  it('WRONG_INFO: latitude/longitude/description names, categories as category objects', async () => {
    const r = await f.t.get('/1/pois/warnings/add.json', {
      oauth_token: f.member,
      poi: ids['Plain']!,
      type: 'WRONG_INFO',
      name: 'Better name',
      desc: 'Better description',
      categories: '6,7',
      phone: '+34 600',
    });
    expect(r.status).toBe(200);
    const report = r.json as unknown as Report;
    expect(report.data).toEqual({
      id: report.id,
      latitude: null,
      longitude: null,
      accuracy: null,
      vaccuracy: null,
      elevation: null,
      name: 'Better name',
      description: 'Better description',
      address: null,
      cross_street: null,
      city: null,
      country: null,
      postal_code: null,
      phone: '+34 600',
      twitter: null,
      categories: [
        { Id: 6, Description: 'Museum', is_system_category: true },
        { Id: 7, Description: 'Monument and landmark', is_system_category: true },
      ],
    });
  });

  it('WRONG_INDICATOR: the proposed position as latitude/longitude, categories an empty array', async () => {
    const r = await f.t.get('/1/pois/warnings/add.json', { oauth_token: f.member, poi: ids['Plain']!, type: 'WRONG_INDICATOR', lat: 40.1, lng: '-3.5', accuracy: 5 });
    const report = r.json as unknown as Report;
    expect(report.data).toMatchObject({ id: report.id, latitude: 40.1, longitude: -3.5, accuracy: 5, vaccuracy: null, name: null, categories: [] });
    expect(report.data).not.toHaveProperty('lat');
    expect(report.data).not.toHaveProperty('desc');
  });

  it('CLOSED and DUPLICATED carry data null', async () => {
    const r = await f.t.get('/1/pois/warnings/add.json', { oauth_token: f.member, poi: ids['Plain']!, type: 'CLOSED', name: 'ignored' });
    expect((r.json as unknown as Report).data).toBeNull();
  });

  it('the list gives every non-null data a categories array, and current has the camelCase names', async () => {
    const r = await f.t.get('/1/pois/warnings.json', { oauth_token: f.admin, poi: ids['Plain']! });
    const groups = r.body as Array<{ current: Record<string, unknown> & { warnings: Record<string, number> }; warnings: Report[] }>;
    expect(groups).toHaveLength(1);
    const group = groups[0]!;
    for (const w of group.warnings) if (w.data !== null) expect(Array.isArray(w.data['categories'])).toBe(true);
    const current = group.current;
    expect(current['crossStreet']).toBe(current['cross_street']);
    expect(current['postalCode']).toBe(current['postal_code']);
    expect(current['lastUpdate']).toBe(current['last_update']);
    expect(typeof current['lastUpdate']).toBe('string');
    expect(current.warnings).toMatchObject({ closed: 1, duplicated: 0, wrong_indicator: 1, wrongIndicator: 1, wrong_info: 1, wrongInfo: 1 });
    // Only in this reply: get.json keeps the snake_case names alone.
    const plain = (await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: ids['Plain']! })).json;
    expect(plain).not.toHaveProperty('crossStreet');
    expect(plain['warnings']).not.toHaveProperty('wrongInfo');
  });
});

describe('closing the reports of several POIs in one call', () => {
  it('warnings/delete.json accepts poi=1,4 as warnings.json does', async () => {
    for (const name of ['Ñandú park', 'Straße cafe', 'Αθήνα view']) {
      await f.t.get('/1/pois/warnings/add.json', { oauth_token: f.member, poi: ids[name]!, type: 'DUPLICATED' });
    }
    const list = `${ids['Ñandú park']},${ids['Straße cafe']}`;
    const r = await f.t.get('/1/pois/warnings/delete.json', { oauth_token: f.admin, poi: list, type: 'DUPLICATED' });
    expect(r.json).toEqual({ code: 200, description: 'OK' });
    const left = (await f.t.get('/1/pois/warnings.json', { oauth_token: f.admin, type: 'DUPLICATED' })).body as Array<{ current: { id: number } }>;
    expect(left.map((g) => g.current.id)).toEqual([ids['Αθήνα view']]);
  });

  it('refuses the whole list, closing nothing, when one POI is not the client\'s', async () => {
    const r = await f.t.get('/1/pois/warnings/delete.json', { oauth_token: f.admin, poi: `${ids['Αθήνα view']},999999` });
    expect(r.json).toMatchObject({ code: 404, parameter: 'poi' });
    const left = (await f.t.get('/1/pois/warnings.json', { oauth_token: f.admin, poi: ids['Αθήνα view']! })).body as unknown[];
    expect(left).toHaveLength(1);
  });
});
