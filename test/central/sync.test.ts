import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addWarningInput } from '../../shared/schemas/pois.js';
import type { PoiReply, WarningReply } from '../../shared/wire.js';
import type { ConflictReply, PushedChange } from '../../shared/sync.js';
import { Devices } from '../../main/central/devices.js';
import { migrateCentral } from '../../main/central/store/migrate.js';
import { centralPool } from '../../main/central/store/pool.js';
import { startCentralServer, type CentralApp } from '../../main/central/server.js';
import { centralConflicts, syncOnce, SyncError, type SyncTarget } from '../../main/sync-client/client.js';
import { openCore, type OpenCore } from '../support/core.js';
import { postgresMissing, startPostgres, type ThrowawayPostgres } from '../support/postgres.js';

const missing = postgresMissing();
if (missing) {
  if (process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the sync tests must run here: ${missing}`);
  console.warn(`skipped: the sync tests need PostgreSQL with PostGIS. ${missing}`);
}

/** Two desktops (two data folders) and one central served by two instances of the sync service over one PostgreSQL. */
describe.skipIf(missing !== undefined)('sync between two desktops through the central', () => {
  let pg: ThrowawayPostgres;
  const pools: Pool[] = [];
  const servers: CentralApp[] = [];
  const urls: string[] = [];
  const dirs: string[] = [];
  const cores: OpenCore[] = [];

  beforeAll(async () => {
    pg = await startPostgres();
    for (let i = 0; i < 2; i++) {
      const pool = centralPool(pg.url);
      pools.push(pool);
      if (i === 0) await migrateCentral(pool);
      const { app, url } = await startCentralServer(pool);
      servers.push(app);
      urls.push(url);
    }
  }, 60_000);
  afterAll(async () => {
    cores.forEach((c) => c.close());
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all(pools.map((p) => p.end()));
    await pg?.remove();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  });

  /** A desktop with its own data folder. */
  const desktop = (): OpenCore => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-desktop-'));
    dirs.push(dir);
    const core = openCore({ file: join(dir, 'poi.sqlite') });
    cores.push(core);
    return core;
  };

  /** A client application made on desktop A, with a device credential for A (instance 1) and one for B (instance 2). */
  async function pair(name: string) {
    const a = desktop();
    const b = desktop();
    const clientId = a.clients.create({ name }).client_id;
    const devices = new Devices(pools[0]!);
    const ta: SyncTarget = { url: urls[0]!, credential: (await devices.add(clientId, `${name} laptop A`, name)).credential };
    const tb: SyncTarget = { url: urls[1]!, credential: (await devices.add(clientId, `${name} laptop B`, name)).credential };
    return { a, b, clientId, ta, tb };
  }

  const all = async (core: OpenCore, clientId: string): Promise<PoiReply[]> => (await core.console['pois.search']({ clientId, filter: { total: 1000 } })) as PoiReply[];
  /** A POI as both desktops must hold it: by uuid, its fields and its categories by name (ids are each desktop's own). */
  const comparable = (p: PoiReply) => ({ ...p, id: undefined, categories: p.categories.map((c) => c.Description).sort(), last_update: undefined, registertime: undefined });
  const same = async (a: OpenCore, b: OpenCore, clientId: string) =>
    expect((await all(b, clientId)).map(comparable).sort((x, y) => x.uuid.localeCompare(y.uuid))).toEqual((await all(a, clientId)).map(comparable).sort((x, y) => x.uuid.localeCompare(y.uuid)));

  it('brings what one desktop holds (POIs, their categories, its own category) to a desktop that never synced', async () => {
    const { a, b, clientId, ta, tb } = await pair('Field survey');
    const own = await a.console['categories.add']({ clientId, desc: 'Fountains' });
    for (let i = 0; i < 30; i++) {
      await a.console['pois.add']({ clientId, fields: { name: `Fountain ${i}`, lat: 40.41 + i / 1000, lng: -3.7 - i / 1000, categories: i % 2 ? [own.Id, 2] : [2], phone: `+34 ${i}`, geocode: false } });
    }
    expect(await syncOnce(a, ta)).toMatchObject({ pushed: 31, conflicts: 0 });
    const pulled = await syncOnce(b, tb);
    expect(pulled).toMatchObject({ clientId, pushed: 0, pulled: 31 });
    expect(b.clients.find(clientId)?.name).toBe('Field survey');
    await same(a, b, clientId);
    // Synced again with nothing new: nothing moves.
    expect(await syncOnce(a, ta)).toMatchObject({ pushed: 0 });
    expect(await syncOnce(b, tb)).toMatchObject({ pushed: 0 });
    await same(a, b, clientId);
  });

  it('brings 10,000 POIs created on one desktop to the other after one sync each', async () => {
    const { a, b, clientId, ta, tb } = await pair('Ten thousand');
    const inputs = Array.from({ length: 10_000 }, (_, i) => ({ name: `Point ${i}`, lat: -10 + (i % 100) / 100, lng: 20 + Math.floor(i / 100) / 100, categories: [2 + (i % 3)], phone: String(i) }));
    for (let i = 0; i < inputs.length; i += 1000) a.pois.addMany(clientId, inputs.slice(i, i + 1000));
    let t = performance.now();
    expect(await syncOnce(a, ta)).toMatchObject({ pushed: 10_000, conflicts: 0 });
    const pushMs = performance.now() - t;
    t = performance.now();
    expect(await syncOnce(b, tb)).toMatchObject({ pulled: 10_000 });
    console.log(`10,000 POIs: pushed in ${Math.round(pushMs)} ms, pulled and applied in ${Math.round(performance.now() - t)} ms`);
    const count = (core: OpenCore) => core.db.prepare('SELECT count(*) FROM pois WHERE client_id = ?').pluck().get(clientId);
    expect(count(b)).toBe(10_000);
    const names = (core: OpenCore) => core.db.prepare('SELECT uuid, name, lat, lng, phone, category_ids FROM pois WHERE client_id = ? ORDER BY uuid').all(clientId);
    expect(names(b)).toEqual(names(a));
  }, 120_000);

  it('carries problem reports to the other desktop, with their POI and proposal, and a report closed on one closes on the other', async () => {
    const { a, b, clientId, ta, tb } = await pair('Reports');
    const poi = (await a.console['pois.add']({ clientId, fields: { name: 'Old name', lat: 45, lng: 6, categories: [2], geocode: false } })) as PoiReply;
    const before = a.warnings.add(null, addWarningInput.parse({ poi: poi.id, type: 'CLOSED' }));
    await syncOnce(a, ta);
    a.warnings.add(null, addWarningInput.parse({ poi: poi.id, type: 'WRONG_INFO', name: 'New name' }));
    await syncOnce(a, ta);
    await syncOnce(b, tb);
    const onB = b.console['warnings.open']({ clientId }) as WarningReply[];
    expect(onB.map((w) => [w.type, w.poi_id])).toEqual([['CLOSED', (await all(b, clientId))[0]!.id], ['WRONG_INFO', (await all(b, clientId))[0]!.id]]);
    // Applied on B (an update of the POI, and the report closed): A gets both.
    await b.console['warnings.apply']({ clientId, warning: onB[1]!.id });
    await syncOnce(b, tb);
    await syncOnce(a, ta);
    expect((a.console['warnings.open']({ clientId }) as WarningReply[]).map((w) => w.id)).toEqual([before.id]);
    expect(a.pois.get(clientId, poi.id).name).toBe('New name');
  });

  it('lets a member registered on one desktop log in on the other, and a new password follows', async () => {
    const { a, b, clientId, ta, tb } = await pair('Members');
    await a.console['members.register']({ clientId, fields: { username: 'ana001', pwd: 'secret1', email: 'ana@example.com' } });
    await syncOnce(a, ta);
    await syncOnce(b, tb);
    expect(await b.console['members.login']({ clientId, fields: { username: 'ana001', pwd: 'secret1' } })).toMatchObject({ name: 'ana001' });
    const member = (b.console['members.list']({ clientId, page: { count: 10, page: 0 } }) as Array<{ id: string }>)[0]!;
    await b.console['members.update']({ clientId, memberId: member.id, fields: { oldpwd: 'secret1', pwd: 'secret2' } });
    await syncOnce(b, tb);
    await syncOnce(a, ta);
    await expect(Promise.resolve().then(() => a.console['members.login']({ clientId, fields: { username: 'ana001', pwd: 'secret1' } }))).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(await a.console['members.login']({ clientId, fields: { username: 'ana001', pwd: 'secret2' } })).toMatchObject({ name: 'ana001' });
  });

  it('merges offline edits of different fields of one POI, and makes one conflict of the same field edited on both sides', async () => {
    const { a, b, clientId, ta, tb } = await pair('Merge');
    const poi = (await a.console['pois.add']({ clientId, fields: { name: 'Kiosk', lat: 41, lng: 2, categories: [2], geocode: false } })) as PoiReply;
    await syncOnce(a, ta);
    await syncOnce(b, tb);
    const onB = (await all(b, clientId))[0]!;

    // Offline, each desktop edits: a different field each, and the same field both.
    await a.console['pois.update']({ clientId, fields: { poi: poi.id, name: 'Kiosk Sol', desc: 'from A' } });
    await b.console['pois.update']({ clientId, fields: { poi: onB.id, phone: '+34 600', desc: 'from B' } });
    await syncOnce(a, ta);
    const fromB = await syncOnce(b, tb);
    expect(fromB.conflicts).toBe(1);
    await syncOnce(a, ta);
    await same(a, b, clientId);
    // Last writer wins (B pushed last), and the conflict is kept with base, mine and theirs.
    expect((await all(a, clientId))[0]).toMatchObject({ name: 'Kiosk Sol', phone: '+34 600', description: 'from B' });
    const conflicts = await centralConflicts(ta);
    expect(conflicts).toEqual([expect.objectContaining({ entity: 'poi', uuid: poi.uuid, field: 'description', base: null, mine: 'from B', theirs: 'from A', kept: 'mine' } satisfies Partial<ConflictReply>)]);
    // History on A says the values came by sync.
    const history = a.console['pois.history']({ clientId, poi: poi.id }) as Array<{ actor: { kind: string } }>;
    expect(history[0]!.actor.kind).toBe('sync');
  });

  it('makes a conflict of an edit against a delete', async () => {
    const { a, b, clientId, ta, tb } = await pair('Delete');
    const poi = (await a.console['pois.add']({ clientId, fields: { name: 'Bench', lat: 42, lng: 3, categories: [2], geocode: false } })) as PoiReply;
    await syncOnce(a, ta);
    await syncOnce(b, tb);
    a.console['pois.delete']({ clientId, poi: poi.id });
    await b.console['pois.update']({ clientId, fields: { poi: (await all(b, clientId))[0]!.id, name: 'Bench (painted)' } });
    await syncOnce(a, ta);
    expect((await syncOnce(b, tb)).conflicts).toBe(1);
    await syncOnce(a, ta);
    await same(a, b, clientId);
    expect((await centralConflicts(tb)).map((c) => [c.field, c.theirs])).toEqual([[null, 'deleted']]);
  });

  it('leaves the desktop working offline when the central is down, with its changes waiting; the next sync delivers them', async () => {
    const { a, b, clientId, ta, tb } = await pair('Offline');
    await syncOnce(a, ta);
    await pg.stop('immediate');
    try {
      await a.console['pois.add']({ clientId, fields: { name: 'Written offline', lat: 43, lng: 4, categories: [2], geocode: false } });
      await expect(syncOnce(a, ta)).rejects.toBeInstanceOf(SyncError);
      expect((await all(a, clientId)).map((p) => p.name)).toEqual(['Written offline']);
    } finally {
      await pg.start();
    }
    await expect.poll(async () => syncOnce(a, ta).then((r) => r.pushed, () => -1), { timeout: 20_000 }).toBe(1);
    await syncOnce(b, tb);
    expect((await all(b, clientId)).map((p) => p.name)).toEqual(['Written offline']);
  }, 60_000);

  it('describes its API in a valid OpenAPI 3.1 document, and its replies match it', async () => {
    const document = (await (await fetch(new URL('/sync/openapi.json', urls[1]!))).json()) as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys(document.paths).sort()).toEqual(['/sync/conflicts', '/sync/conflicts/{id}/resolved', '/sync/hello', '/sync/pull', '/sync/push']);
    const { a, clientId, ta, tb } = await pair('Described');
    await a.console['pois.add']({ clientId, fields: { name: 'Described', lat: 1, lng: 1, categories: [2], geocode: false } });
    await syncOnce(a, ta);
    const ajv = new Ajv2020({ strict: false });
    // As B: A's own rows are its echoes, which its pulls skip.
    const get = async (path: string) => (await fetch(new URL(path, tb.url), { headers: { authorization: `Bearer ${tb.credential}` } })).json();
    for (const [path, url] of [['/sync/hello', '/sync/hello'], ['/sync/pull', '/sync/pull?after=0&count=1'], ['/sync/conflicts', '/sync/conflicts']] as const) {
      const check = ajv.compile(document.paths[path]!.get!.responses['200']!.content!['application/json']!.schema);
      const body: unknown = await get(url);
      expect({ path, ok: check(body), errors: check.errors ?? null }).toEqual({ path, ok: true, errors: null });
    }
    expect(await get('/sync/pull?after=0&count=1')).toMatchObject({ remaining: 1, rows: [expect.objectContaining({ entity: 'poi', fields: expect.objectContaining({ name: 'Described' }) })] });
  });

  it('refuses plain HTTP from another computer unless told otherwise, and a request without a valid credential', async () => {
    // This machine's own network address stands in for another computer: the request does not come from loopback.
    const lan = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    const { clientId, ta } = await pair('Plain');
    const strict = await startCentralServer(pools[0]!, { host: '0.0.0.0' });
    const open = await startCentralServer(pools[0]!, { host: '0.0.0.0', allowPlainHttp: true });
    try {
      const hello = (base: string, credential = ta.credential) => fetch(new URL('/sync/hello', base), { headers: { authorization: `Bearer ${credential}` } });
      const overLan = (served: string): string => `http://${lan}:${new URL(served).port}`;
      if (lan) {
        const refused = await hello(overLan(strict.url));
        expect(refused.status).toBe(403);
        expect(await refused.json()).toMatchObject({ description: 'EXCEPTION_FORBIDDEN', message: expect.stringContaining('put TLS in front') });
        expect((await hello(overLan(open.url))).status).toBe(200);
      } else {
        console.warn('skipped the plain-HTTP half: this machine has no network address other than loopback');
      }
      expect(await (await hello(urls[0]!)).json()).toMatchObject({ client_id: clientId, policy: 'last-writer-wins' });
      expect((await hello(urls[0]!, `${ta.credential.split('.')[0]}.wrong`)).status).toBe(401);
      expect((await fetch(new URL('/sync/hello', urls[0]!))).status).toBe(401);
      const bad = await fetch(new URL('/sync/push', urls[0]!), { method: 'POST', headers: { authorization: `Bearer ${ta.credential}`, 'content-type': 'application/json' }, body: JSON.stringify({ changes: [{ op: 'x', entity: 'poi', uuid: 'nope', kind: 'update', fields: {}, at: 1 }] }) });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toMatchObject({ description: 'EXCEPTION_INVALID_PARAMETER', message: expect.stringContaining('changes.0.uuid') });
    } finally {
      await strict.app.close();
      await open.app.close();
    }
  });

  it('never loses an update when both desktops push the same field of the same POIs at once, to the two instances', async () => {
    const { a, clientId, ta, tb } = await pair('Race');
    const uuids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const p = (await a.console['pois.add']({ clientId, fields: { name: `Race ${i}`, lat: 44, lng: 5 + i / 100, categories: [2], geocode: false } })) as PoiReply;
      uuids.push(p.uuid);
    }
    await syncOnce(a, ta);
    // Each POI renamed from the same base by both desktops, each push its own request, all at once.
    // Each device's operations carry its own id (the central refuses another device's).
    const deviceOf = (target: SyncTarget): string => target.credential.split('.')[0]!;
    const renamed = (uuid: string, by: string, i: number): PushedChange => ({ op: `${deviceOf(by === 'A' ? ta : tb)}:race-${uuid}`, entity: 'poi', uuid, kind: 'update', fields: { name: [`Race ${i}`, `Race ${i} by ${by}`] }, at: Date.now() });
    const pushOne = (target: SyncTarget, change: PushedChange) =>
      fetch(new URL('/sync/push', target.url), { method: 'POST', headers: { authorization: `Bearer ${target.credential}`, 'content-type': 'application/json' }, body: JSON.stringify({ changes: [change] }) }).then((r) => r.json() as Promise<{ conflicts: number }>);
    const replies = await Promise.all(uuids.flatMap((uuid, i) => [pushOne(ta, renamed(uuid, 'A', i)), pushOne(tb, renamed(uuid, 'B', i))]));
    // The second of each pair found the first's value, not the base: a conflict every time, no update silently overwritten.
    expect(replies.reduce((n, r) => n + r.conflicts, 0)).toBe(uuids.length);
    const conflicts = await centralConflicts(ta);
    expect(new Set(conflicts.map((c) => c.uuid))).toEqual(new Set(uuids));
    for (const c of conflicts) expect([c.mine, c.theirs].sort()).toEqual([`${String(c.base)} by A`, `${String(c.base)} by B`]);
  }, 60_000);
});
