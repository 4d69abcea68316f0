import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { addWarningInput } from '../../shared/schemas/pois.js';
import type { ActivityEntry } from '../../shared/activity.js';
import type { ChangeReply, PoiReply, UndoReply } from '../../shared/wire.js';
import { openDatabase } from '../../main/core/store/database.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';
import { openCore, testCore, type TestCore } from '../support/core.js';

const core = testCore();
const clientId = core.clients.create({ name: 'Undo' }).client_id;
const other = core.clients.create({ name: 'Other' }).client_id;
afterAll(() => core.close());

/**
 * The data an undo must put back, every row of every table a POI lives in (its R*Tree entry,
 * category links and reports included). `updated_at` is left out of POIs and categories: an
 * undo is a change, and says when it was made.
 */
function state(c: TestCore): Record<string, unknown[]> {
  const rows = (sql: string): unknown[] => c.db.prepare(sql).all();
  const without = (list: unknown[], column: string): unknown[] => list.map((r) => Object.fromEntries(Object.entries(r as object).filter(([k]) => k !== column)));
  return {
    pois: without(rows('SELECT * FROM pois ORDER BY id'), 'updated_at'),
    poi_categories: rows('SELECT * FROM poi_categories ORDER BY poi_id, category_id'),
    pois_rtree: rows('SELECT * FROM pois_rtree ORDER BY id'),
    warnings: rows('SELECT * FROM warnings ORDER BY id'),
    categories: without(rows('SELECT * FROM categories ORDER BY id'), 'updated_at'),
  };
}

const add = async (fields: { name: string } & Record<string, unknown>): Promise<PoiReply> =>
  (await core.console['pois.add']({ clientId, fields: { lat: 40.4168, lng: -3.7038, categories: [2], geocode: false, ...fields } })) as PoiReply;
const history = (poi: number): ChangeReply[] => core.console['pois.history']({ clientId, poi }) as ChangeReply[];
const undo = async (seq: number): Promise<UndoReply> => (await core.console['changes.undo']({ clientId, seq })) as UndoReply;
const undoing = (seq: number): Promise<unknown> => Promise.resolve().then(() => core.console['changes.undo']({ clientId, seq }));
const report = (input: Record<string, unknown>) => core.warnings.add(null, addWarningInput.parse(input));

describe('undo', () => {
  it('of an update puts back every field it changed, logged as an undo of that change; undoing the undo redoes it', async () => {
    const own = await core.console['categories.add']({ clientId, desc: 'Kiosks' });
    const poi = await add({ name: 'Cafe Plaza', desc: 'On the square', phone: '+34 1', elevation: 650.25, categories: [2, own.Id] });
    const before = state(core);
    core.clock.advance(1000);
    await core.console['pois.update']({ clientId, fields: { poi: poi.id, name: 'Café Plaza Mayor', desc: '', lat: 40.41675, lng: -3.70379, categories: [own.Id], elevation: null } });
    const after = state(core);
    expect(after).not.toEqual(before);
    const [update] = history(poi.id);
    expect(update).toMatchObject({ op: 'update', undoes: null });

    core.clock.advance(1000);
    expect(await undo(update!.seq)).toEqual({ undone: 1, poi: poi.id });
    expect(state(core)).toEqual(before);
    const [reversal] = history(poi.id);
    expect(reversal).toMatchObject({ op: 'update', undoes: update!.seq, actor: { kind: 'console', id: null } });
    expect(reversal!.fields.name).toEqual(['Café Plaza Mayor', 'Cafe Plaza']);
    // A map filtered by the category it lost finds it again: the links follow.
    expect(((await core.console['pois.search']({ clientId, filter: { total: 10, categories: [2] } })) as PoiReply[]).map((p) => p.id)).toContain(poi.id);

    // The same change again: what it wrote is no longer there.
    await expect(undoing(update!.seq)).rejects.toMatchObject({ code: 'CONFLICT', parameter: 'change' });
    await undo(reversal!.seq);
    expect(state(core)).toEqual(after);
  });

  it('refuses a change whose fields were changed since, naming them and changing nothing; fields untouched since still undo', async () => {
    const poi = await add({ name: 'Bakery', phone: '+34 2' });
    await core.console['pois.update']({ clientId, fields: { poi: poi.id, name: 'Bakery Sol', phone: '+34 3' } });
    const first = history(poi.id)[0]!.seq;
    await core.console['pois.update']({ clientId, fields: { poi: poi.id, name: 'Bakery of Sol' } });
    const before = state(core);
    await expect(undoing(first)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('name') });
    expect(state(core)).toEqual(before);

    await core.console['pois.update']({ clientId, fields: { poi: poi.id, name: 'Bakery Sol' } });
    await undo(first);
    expect(core.pois.get(clientId, poi.id)).toMatchObject({ name: 'Bakery', phone: '+34 2' });
  });

  it('of a delete brings the POI back with its id, uuid, dates, author, categories, position and open reports', async () => {
    await core.members.register(clientId, { username: 'undo01', pwd: 'secret1', email: 'u1@example.com' });
    const memberId = core.db.prepare("SELECT id FROM members WHERE username = 'undo01'").pluck().get();
    const poi = await core.pois.add(clientId, null, { lat: 41.3874, lng: 2.1686, name: 'Sagrada', categories: [1, 2], geocode: false, city: 'Barcelona' });
    core.db.prepare('UPDATE pois SET created_by = ? WHERE id = ?').run(memberId, poi.id);
    const dismissed = report({ poi: poi.id, type: 'CLOSED' });
    core.clock.advance(1000);
    core.console['warnings.dismiss']({ clientId, warning: dismissed.id });
    core.clock.advance(1000);
    report({ poi: poi.id, type: 'WRONG_INFO', name: 'Sagrada Família', phone: '+34 93' });
    report({ poi: poi.id, type: 'DUPLICATED' });
    const before = state(core);

    core.clock.advance(60_000);
    core.console['pois.delete']({ clientId, poi: poi.id });
    expect(core.db.prepare('SELECT count(*) FROM warnings WHERE poi_id = ?').pluck().get(poi.id)).toBe(0);
    const tombstone = history(poi.id)[0]!;
    expect(tombstone).toMatchObject({ op: 'delete', entity: 'poi' });
    // Another client cannot see, let alone undo, it.
    await expect(Promise.resolve().then(() => core.console['changes.undo']({ clientId: other, seq: tombstone.seq }))).rejects.toMatchObject({ code: 'NOT_FOUND' });

    core.clock.advance(1000);
    await undo(tombstone.seq);
    // The report dismissed before the delete stays closed; the two open at the delete are back.
    expect(state(core)).toEqual(before);
    expect(core.pois.get(clientId, poi.id)).toMatchObject({ uuid: poi.uuid, city: 'Barcelona', warnings: { wrong_info: 1, duplicated: 1, closed: 0 } });
    // The POI comes back first, then its reports, each an undo of its own tombstone.
    const restored = history(poi.id).find((h) => h.entity === 'poi');
    expect(restored).toMatchObject({ op: 'create', undoes: tombstone.seq });
    await expect(undoing(tombstone.seq)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('exists again') });
  });

  it('of an import removes what it added, puts back what it updated and the categories it created, all or nothing', async () => {
    const kept = await add({ name: 'Kept', phone: '+34 4' });
    const beforeImport = state(core);
    const csv = `name,lat,lng,category_names,uuid,phone\r\nNew one,40.1,-3.1,Brand new,,\r\nNew two,40.2,-3.2,Kiosks,,+34 5\r\nKept (renamed),40.4168,-3.7038,Kiosks,${kept.uuid},+34 6\r\n`;
    const imported = await core.importPois(clientId, Readable.from([Buffer.from(csv)]), 'csv', { createCategories: true });
    expect(imported).toMatchObject({ added: 2, updated: 1, refused: [], createdCategories: ['Brand new'] });
    const afterImport = state(core);

    // Edited since: the whole undo is refused, nothing changes.
    const newTwo = ((await core.console['pois.search']({ clientId, filter: { total: 10, q: 'New two' } })) as PoiReply[])[0]!;
    await core.console['pois.update']({ clientId, fields: { poi: newTwo.id, phone: '+34 7' } });
    const edited = state(core);
    await expect(Promise.resolve().then(() => core.undo.importRun(clientId, imported.importId))).rejects.toMatchObject({
      code: 'CONFLICT',
      message: expect.stringContaining(`POI ${newTwo.id} "New two" changed since: phone`),
    });
    expect(state(core)).toEqual(edited);
    await undo(history(newTwo.id)[0]!.seq);
    expect(state(core)).toEqual(afterImport);

    expect(await core.undo.importRun(clientId, imported.importId)).toEqual({ undone: 4, poi: null });
    expect(state(core)).toEqual(beforeImport);
    expect(history(kept.id)[0]).toMatchObject({ op: 'update', actor: { kind: 'console' }, undoes: expect.any(Number) });
    await expect(Promise.resolve().then(() => core.undo.importRun(clientId, imported.importId))).rejects.toMatchObject({ code: 'CONFLICT', parameter: 'import' });
    await expect(Promise.resolve().then(() => core.undo.importRun(other, imported.importId))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

/** An import's only change. */
const ofImport = (c: string, importId: string): ChangeReply => {
  const { changes } = core.console['changes.ofImport']({ clientId: c, importId, part: 'import', limit: 2 }) as { changes: ChangeReply[] };
  expect(changes).toHaveLength(1);
  return changes[0]!;
};

describe('the activity list', () => {
  it("lists the client's changes newest first, by who and what, in pages", async () => {
    const c = core.clients.create({ name: 'Activity' }).client_id;
    const a = (await core.console['pois.add']({ clientId: c, fields: { lat: 1, lng: 1, name: 'A', categories: [2], geocode: false } })) as PoiReply;
    await core.console['categories.add']({ clientId: c, desc: 'Mine' });
    await core.console['pois.update']({ clientId: c, fields: { poi: a.id, name: 'A2' } });
    await core.importPois(c, Readable.from([Buffer.from('name,lat,lng,categories\r\nB,2,2,2\r\n')]), 'csv');
    const page = (input: Record<string, unknown>) => {
      const { entries, next } = core.console['changes.activity']({ clientId: c, limit: 50, ...input }) as { entries: ActivityEntry[]; next: number | null };
      // The import's one change as the change it is (an import is one entry: test/core/activity.test.ts).
      const changes = entries.map((e) => (e.kind === 'change' ? e.change : ofImport(c, e.import.id)));
      return { changes, next };
    };

    const all = page({});
    expect(all.changes.map((x) => [x.entity, x.op, x.actor.kind])).toEqual([
      ['poi', 'create', 'import'],
      ['poi', 'update', 'console'],
      ['category', 'create', 'console'],
      ['poi', 'create', 'console'],
      ['token', 'create', 'console'],
      ['client', 'create', 'console'],
    ]);
    expect(page({ actor: 'import' }).changes.map((x) => x.fields.name)).toEqual([[null, 'B']]);
    expect(page({ entity: 'poi', actor: 'console' }).changes.map((x) => x.op)).toEqual(['update', 'create']);
    const first = page({ limit: 2 });
    expect(first.changes).toEqual(all.changes.slice(0, 2));
    expect(page({ limit: 2, before: first.next! }).changes).toEqual(all.changes.slice(2, 4));
    // Only this client's.
    expect(all.changes.every((x) => x.entity !== 'poi' || Number(x.id) >= a.id)).toBe(true);
  });
});

describe('migration 010 (undo)', () => {
  it('brings back a POI deleted before the upgrade, whose tombstone has no dates: the creation stands in for them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-m10-'));
    try {
      const file = join(dir, 'poi.sqlite');
      const v9 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 9) });
      v9.exec(`
        INSERT INTO clients (id, name, created_at) VALUES ('${clientId}', 'n', 0);
        INSERT INTO pois (id, uuid, client_id, name, lat, lng, category_ids, registered_at, updated_at, name_key)
          VALUES (7, '0b9a4e4c-7d0a-4c4e-9a8e-2f8f4c1d2e3a', '${clientId}', 'Old', 40, -3, '[1]', 1000, 2000, 'old');
        DELETE FROM pois WHERE id = 7;
      `);
      const tombstone = v9.prepare("SELECT seq, fields FROM changes WHERE entity = 'poi' AND op = 'delete'").get() as { seq: number; fields: string };
      expect(JSON.parse(tombstone.fields)).not.toHaveProperty('registered_at');
      v9.close();

      const upgraded = openCore({ file });
      try {
        await upgraded.console['changes.undo']({ clientId, seq: tombstone.seq });
        // The creation was logged at the "now" of the connection that wrote it (0 here: no clock).
        const created = upgraded.db.prepare("SELECT at FROM changes WHERE entity = 'poi' AND op = 'create'").pluck().get();
        expect(upgraded.db.prepare('SELECT uuid, name, category_ids, registered_at FROM pois WHERE id = 7').get()).toEqual({
          uuid: '0b9a4e4c-7d0a-4c4e-9a8e-2f8f4c1d2e3a',
          name: 'Old',
          category_ids: '[1]',
          registered_at: created,
        });
      } finally {
        upgraded.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('of a large import gives the event loop back between slices, and one that a change slips into stops there and is finished by undoing again', async () => {
    const big = core.clients.create({ name: 'Big undo' }).client_id;
    const rows = Array.from({ length: 2_000 }, (_, i) => `Row ${i},${(40 + i * 0.0001).toFixed(4)},-3.5,2`);
    const before = state(core);
    const imported = await core.importPois(big, Readable.from([Buffer.from(`name,lat,lng,categories\n${rows.join('\n')}\n`)]), 'csv');
    expect(imported.added).toBe(2_000);

    // A change slips in between two slices: to a POI whose create the undo has not reversed yet.
    const oldest = (core.db.prepare('SELECT min(id) FROM pois WHERE client_id = ?').pluck().get(big) as number);
    let slipped = false;
    let turns = 0;
    const probe = setInterval(() => turns++, 0);
    const stopped = await core.undo
      .importRun(big, imported.importId, (done) => {
        if (done > 0 && !slipped) {
          slipped = true;
          core.writes.now({ kind: 'console' }, () => core.store.update({ ...core.store.get(big, oldest)!, name: 'Edited meanwhile' }));
        }
      })
      .catch((e: unknown) => e);
    clearInterval(probe);
    // Before: one transaction, during which no timer could run; now requests get turns.
    expect(turns).toBeGreaterThan(5);
    expect(stopped).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/^undone in part: \d+ of 2000 changes were reversed, then this stopped it: POI \d+ "Edited meanwhile" changed since: name\. Undo the import again to reverse the rest\.$/) });
    expect(core.db.prepare('SELECT count(*) FROM pois WHERE client_id = ?').pluck().get(big)).toBeGreaterThan(0);

    // The person puts their edit back; undoing again reverses only what is left.
    core.writes.now({ kind: 'console' }, () => core.store.update({ ...core.store.get(big, oldest)!, name: 'Row 0' }));
    const finished = await core.undo.importRun(big, imported.importId);
    expect(finished.undone).toBeLessThan(2_000);
    expect(finished.undone).toBeGreaterThan(0);
    expect(state(core)).toEqual(before);
    await expect(core.undo.importRun(big, imported.importId)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('already undone') });
  });

  it('of an import whose new category a person has used since is refused whole, before anything is written', async () => {
    const client = core.clients.create({ name: 'Category since' }).client_id;
    const imported = await core.importPois(client, Readable.from([Buffer.from('name,lat,lng,category_names\nFirst,40.1,-3.1,Fresh\nSecond,40.2,-3.2,Fresh\n')]), 'csv', { createCategories: true });
    const fresh = (await core.console['categories.list']({ clientId: client })).find((c) => c.Description === 'Fresh')!;
    await core.console['pois.add']({ clientId: client, fields: { name: 'By hand', lat: 41, lng: -3, categories: [fresh.Id], geocode: false } });
    const before = state(core);
    // Before: every POI was deleted first, then the category refused in the last slice, and the undo stopped half done.
    await expect(core.undo.importRun(client, imported.importId)).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`category ${fresh.Id} is used by POIs since`) });
    expect(state(core)).toEqual(before);
  });

  it('of an import from the console runs as a job: progress as changes reversed, its reply kept, refusals as a failed job', async () => {
    const client = core.clients.create({ name: 'Undo job' }).client_id;
    const rows = Array.from({ length: 300 }, (_, i) => `Row ${i},${(40 + i * 0.001).toFixed(3)},-3.5,2`);
    const imported = await core.importPois(client, Readable.from([Buffer.from(`name,lat,lng,categories\n${rows.join('\n')}\n`)]), 'csv');
    const job = await core.console['imports.undo']({ clientId: client, importId: imported.importId });
    expect(job).toMatchObject({ kind: 'undo-import', state: 'running', target: imported.importId, label: `the undo of import ${imported.importId}` });
    const ended = await core.jobs.whenDone(job.id);
    expect(ended).toMatchObject({ state: 'done', report: { undone: 300, poi: null }, progress: { undoing: { done: 300, of: 300 } } });
    expect(core.db.prepare('SELECT count(*) FROM pois WHERE client_id = ?').pluck().get(client)).toBe(0);
    const again = await core.jobs.whenDone((await core.console['imports.undo']({ clientId: client, importId: imported.importId })).id);
    expect(again).toMatchObject({ state: 'failed', error: expect.stringContaining('already undone') });
    await expect(Promise.resolve().then(() => core.console['imports.undo']({ clientId: client, importId: 'no-such-import' }))).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});
