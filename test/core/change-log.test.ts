import { describe, expect, it } from 'vitest';
import { CONSOLE } from '../../main/core/store/write-path.js';
import { LOGGED_010 } from '../../main/core/store/migrations/010-undo.js';
import { hashToken } from '../../main/core/tokens/tokens.js';
import { testCore } from '../support/core.js';
import { poiFixture } from '../support/fixture.js';

interface Row {
  seq: number;
  entity: string;
  entity_id: string;
  entity_uuid: string | null;
  client_id: string | null;
  poi_id: number | null;
  op: string;
  fields: string;
  actor_kind: string;
  actor_id: string | null;
}

type Core = ReturnType<typeof testCore>;
const log = (core: Core, after = 0): Array<Omit<Row, 'fields'> & { fields: Record<string, [unknown, unknown]> }> =>
  (core.db.prepare('SELECT * FROM changes WHERE seq > ? ORDER BY seq').all(after) as Row[]).map((r) => ({ ...r, fields: JSON.parse(r.fields) as Record<string, [unknown, unknown]> }));
const last = (core: Core): number => (core.db.prepare('SELECT coalesce(max(seq), 0) FROM changes').pluck().get() as number);

/** The columns of a table the log does not record, each for a reason. */
const NOT_LOGGED: Record<string, readonly string[]> = {
  // Identity (the change's entity_id/uuid/client_id) and timestamps (the change's own `at`).
  clients: ['id', 'created_at', 'updated_at'],
  members: ['id', 'client_id', 'username_key', 'email_key', 'registered_at', 'updated_at'],
  tokens: ['hash', 'client_id', 'created_at'],
  // Folded copies of logged columns, derived.
  pois: ['id', 'uuid', 'client_id', 'name_key', 'description_key', 'city_key', 'country_key', 'postal_code_key'],
  categories: ['id', 'uuid', 'client_id', 'created_at', 'updated_at'],
  warnings: ['id', 'uuid'],
  settings: ['key'],
};

describe('the change log', () => {
  it('records every column of every logged table, or says why not (adding a column means updating the triggers)', () => {
    const core = testCore();
    for (const { table, columns: recorded, secret = [], tombstone = [] } of LOGGED_010) {
      const logged = [...recorded, ...secret, ...tombstone];
      const columns = (core.db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name).sort();
      expect({ table, columns }).toEqual({ table, columns: [...logged, ...NOT_LOGGED[table]!].sort() });
    }
    core.close();
  });

  it('records clients, their tokens and settings, as the console', () => {
    const core = testCore();
    const start = last(core);
    const c = core.clients.create({ name: 'Alpha' });
    core.clients.setImplicitFlow(c.client_id, true);
    const rotated = core.clients.rotateAdminToken(c.client_id);
    core.settings.setMap({ tileUrl: 'https://tiles.example.org/{z}/{x}/{y}.png', tileAttribution: 'x', tileAttributionUrl: '' });
    const rows = log(core, start);
    expect(rows.map((r) => [r.entity, r.op, r.actor_kind])).toEqual([
      ['client', 'create', 'console'],
      ['token', 'create', 'console'],
      ['client', 'update', 'console'],
      ['token', 'update', 'console'],
      ['token', 'create', 'console'],
      ['setting', 'create', 'console'],
    ]);
    expect(rows[0]!.fields).toEqual({ name: [null, 'Alpha'], implicit_flow: [null, 0] });
    expect(rows[2]!.fields).toEqual({ implicit_flow: [0, 1] });
    // Tokens by their hash, never in clear.
    expect(rows[4]!.entity_id).toBe(hashToken(rotated).toString('hex'));
    const text = JSON.stringify(core.db.prepare('SELECT * FROM changes').all());
    expect(text).not.toContain(c.admin_token);
    expect(text).not.toContain(rotated);
    core.close();
  });

  it('records members with their actor, and a password only as changed, never its hash', async () => {
    const f = await poiFixture();
    const core = f.t.core;
    const start = last(core);
    const reg = await f.t.post('/1/users.json', { api_key: f.apiKey, access_token: f.admin, username: 'logged01', pwd: 'secret1', email: 'l@example.com' });
    const member = reg.json as { id: string; accreditation: { access_token: string } };
    await f.t.call('PUT', `/1/users/${member.id}.json`, { access_token: member.accreditation.access_token, pwd: 'secret22', oldpwd: 'secret1', gender: 'female' });
    await f.t.call('DELETE', `/1/users/${member.id}.json`, { access_token: f.admin });
    const rows = log(core, start).filter((r) => r.entity === 'member');
    expect(rows.map((r) => [r.op, r.actor_kind, r.actor_id])).toEqual([
      ['create', 'administrator', null],
      ['update', 'member', member.id],
      ['delete', 'administrator', null],
    ]);
    // A password only as the fingerprints of its old and new hashes (what sync compares), never a hash.
    expect(rows[1]!.fields).toEqual({ gender: ['UNDEFINED', 'FEMALE'], password: [expect.stringMatching(/^\(secret fp:[0-9a-f]{16}\)$/), expect.stringMatching(/^\(secret fp:[0-9a-f]{16}\)$/)] });
    expect((rows[1]!.fields as { password: [string, string] }).password[0]).not.toBe((rows[1]!.fields as { password: [string, string] }).password[1]);
    const hashes = core.db.prepare('SELECT pwd_hash FROM members').pluck().all() as string[];
    const text = JSON.stringify(core.db.prepare('SELECT * FROM changes').all());
    for (const h of hashes) expect(text).not.toContain(h);
    expect(text).not.toMatch(/\$argon2/);
    // Its tokens went with it, logged as deleted.
    expect(log(core, start).filter((r) => r.entity === 'token' && r.op === 'delete').length).toBeGreaterThan(0);
    await f.t.close();
  });

  it('records a POI, its category links and reports, with who did it; a delete keeps every old value', async () => {
    const f = await poiFixture();
    const core = f.t.core;
    const start = last(core);
    const poi = await f.addPoi({ name: 'Logged', categories: '6,7' }, f.member);
    const id = poi.id as number;
    await f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi: id, name: 'Renamed', desc: 'now described', categories: '7' });
    await f.t.get('/1/pois/warnings/add.json', { oauth_token: f.member, poi: id, type: 'CLOSED' });
    await f.t.get('/1/pois/warnings/delete.json', { oauth_token: f.admin, poi: id });
    await f.t.get('/1/pois/delete.json', { oauth_token: f.admin, poi: id });
    const rows = log(core, start);
    expect(rows.map((r) => [r.entity, r.op, r.actor_kind])).toEqual([
      ['poi', 'create', 'member'],
      ['poi', 'update', 'administrator'],
      ['warning', 'create', 'member'],
      ['warning', 'delete', 'administrator'],
      ['poi', 'delete', 'administrator'],
    ]);
    for (const r of rows) expect(r.poi_id).toBe(id);
    expect(rows[0]!.actor_id).toBe(f.memberId);
    expect(rows[0]!.entity_uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The categories are one of the POI's fields: its links (what filters search) are not logged.
    expect(rows[0]!.fields).toMatchObject({ name: [null, 'Logged'], category_ids: [null, [6, 7]] });
    expect(rows[1]!.fields).toEqual({ name: ['Logged', 'Renamed'], description: [null, 'now described'], category_ids: [[6, 7], [7]] });
    const tombstone = rows[rows.length - 1]!;
    expect(tombstone.fields).toMatchObject({ name: ['Renamed', null], lat: [40.4169, null], lng: [-3.7035, null], description: ['now described', null], category_ids: [[7], null] });
    // History: the console operation and the API read the same log, newest first, after the delete too.
    const history = (await f.t.get('/1/pois/history.json', { oauth_token: f.admin, poi: id })).body as Array<{ op: string; entity: string; actor: { kind: string } }>;
    expect(history.map((h) => [h.entity, h.op])).toEqual(rows.map((r) => [r.entity, r.op]).reverse());
    expect((await f.t.get('/1/pois/history.json', { oauth_token: f.member, poi: id })).status).toBe(403);
    expect((await f.t.get('/1/pois/history.json', { oauth_token: f.otherAdmin, poi: id })).status).toBe(404);
    await f.t.close();
  });

  it('keeps a POI\'s category_ids and its links equal, and logs nothing for the same categories in another order', async () => {
    const f = await poiFixture();
    const core = f.t.core;
    const added = await f.addPoi({ name: 'Ordered', categories: '7,6' }, f.member);
    const id = added.id as number;
    // The reply, built from what was written, is what a read gives.
    expect(added).toEqual((await f.t.get('/1/pois/get.json', { oauth_token: f.member, poi: id })).json);
    const links = (): number[] => core.db.prepare('SELECT category_id FROM poi_categories WHERE poi_id = ? ORDER BY 1').pluck().all(id) as number[];
    const column = (): unknown => JSON.parse(core.db.prepare('SELECT category_ids FROM pois WHERE id = ?').pluck().get(id) as string);
    expect(column()).toEqual([6, 7]);
    expect(links()).toEqual([6, 7]);
    const start = last(core);
    expect((await f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi: id, categories: '6,7' })).status).toBe(200);
    expect(log(core, start)).toEqual([]);
    // The same categories in another order beside a real change: only that change is logged.
    expect((await f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi: id, name: 'Renamed only', categories: '7,6' })).status).toBe(200);
    expect(column()).toEqual([6, 7]);
    expect(links()).toEqual([6, 7]);
    expect((await f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi: id, categories: '7' })).status).toBe(200);
    expect([column(), links()]).toEqual([[7], [7]]);
    expect(log(core, start).map((r) => r.fields)).toEqual([{ name: ['Ordered', 'Renamed only'] }, { category_ids: [[6, 7], [7]] }]);
    await f.t.close();
  });

  it('records categories', async () => {
    const f = await poiFixture();
    const start = last(f.t.core);
    const cat = (await f.t.get('/1/pois/categories/add.json', { oauth_token: f.admin, desc: 'Tapas' })).json as { Id: number };
    await f.t.get('/1/pois/categories/update.json', { oauth_token: f.admin, category: cat.Id, desc: 'Tapas bars' });
    await f.t.get('/1/pois/categories/delete.json', { oauth_token: f.admin, category: cat.Id });
    const rows = log(f.t.core, start);
    expect(rows.map((r) => [r.entity, r.op, r.entity_id, r.actor_kind])).toEqual([
      ['category', 'create', String(cat.Id), 'administrator'],
      ['category', 'update', String(cat.Id), 'administrator'],
      ['category', 'update', String(cat.Id), 'administrator'],
    ]);
    expect(rows[1]!.fields).toEqual({ description: ['Tapas', 'Tapas bars'] });
    expect(Object.keys(rows[2]!.fields)).toEqual(['deleted_at']);
    await f.t.close();
  });

  it('is written in the write\'s own transaction: a write rolled back leaves no log row', async () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Alpha' });
    const before = last(core);
    // The second write of one group commit fails after inserting: it alone is rolled back, with its log row.
    const ok = core.writes.run(CONSOLE, () => core.categories.add(c.client_id, { desc: 'Kept' }));
    const failing = core.writes.run(CONSOLE, () => {
      core.categories.add(c.client_id, { desc: 'Rolled back' });
      throw new Error('refused after the insert');
    });
    await expect(failing).rejects.toThrow('refused after the insert');
    await ok;
    const rows = log(core, before);
    expect(rows.map((r) => r.fields['description']?.[1])).toEqual(['Kept']);
    expect(core.db.prepare("SELECT count(*) FROM categories WHERE description = 'Rolled back'").pluck().get()).toBe(0);
    core.close();
  });
});
