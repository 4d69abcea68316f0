import BetterSqlite3 from 'better-sqlite3';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dispatch } from '../../main/core/console/dispatch.js';
import { openDatabase } from '../../main/core/store/database.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';
import type { Answer, Input, OpName, Output } from '../../shared/contract.js';
import { openCore, PinnedClock, type OpenCore } from '../support/core.js';
import { tableDump } from '../support/table-dump.js';
import { fileServer, writeLoad } from '../support/write-load.js';

const dirs: string[] = [];
const cores: OpenCore[] = [];
afterEach(() => {
  for (const core of cores.splice(0)) core.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileCore(): { core: OpenCore; dir: string; file: string; clock: PinnedClock } {
  const dir = mkdtempSync(join(tmpdir(), 'poi-backups-'));
  dirs.push(dir);
  const file = join(dir, 'poi.sqlite');
  const clock = new PinnedClock();
  const core = openCore({ file, clock });
  cores.push(core);
  return { core, dir, file, clock };
}

/** A dump's data: the jobs table is the app's record of its work (a restore keeps its own row there). */
const withoutJobs = (dump: Record<string, string[]>): Record<string, string[]> => Object.fromEntries(Object.entries(dump).filter(([table]) => table !== 'jobs'));
/** The job rows a dump has beyond another's. */
const jobsBeside = (dump: Record<string, string[]>, before: Record<string, string[]>): { id: string; kind: string; state: string }[] =>
  (dump.jobs ?? []).filter((row) => !(before.jobs ?? []).includes(row)).map((row) => {
    const { id, kind, state } = JSON.parse(row) as { id: string; kind: string; state: string };
    return { id, kind, state };
  });

async function op<K extends OpName>(core: OpenCore, name: K, input: Input<K>): Promise<Output<K>> {
  const answer = (await dispatch(core.console, name, input)) as Answer<Output<K>>;
  if (!answer.ok) throw new Error(`${name}: ${JSON.stringify(answer.error)}`);
  return answer.value;
}

const mode = (path: string): number => statSync(path).mode & 0o777;

/** Some of everything: clients, categories, POIs with warnings and history, settings. */
async function seed(core: OpenCore, tag: string): Promise<{ clientId: string; admin: string; poi: number }> {
  const client = await op(core, 'clients.create', { name: `Client ${tag}` });
  const category = await op(core, 'categories.add', { clientId: client.client_id, desc: `Category ${tag}` });
  let poi = 0;
  for (let i = 0; i < 5; i++) {
    const added = await op(core, 'pois.add', {
      clientId: client.client_id,
      fields: { lat: 40 + i / 100, lng: -3.7, name: `POI ${tag} ${i}`, categories: [category.Id], desc: `about ${tag}` },
    });
    poi = added.id;
  }
  await op(core, 'settings.set', { ...(await op(core, 'settings.get', {})), tileAttribution: `credit ${tag}` });
  return { clientId: client.client_id, admin: client.admin_token, poi };
}

/** Clients a and b seeded alike, b with one POI more: a view counting b's POIs for a's shows 6, not 5. */
async function twoClients(core: OpenCore): Promise<{ a: { clientId: string }; b: { clientId: string } }> {
  const a = await seed(core, 'a');
  const b = await seed(core, 'b');
  await op(core, 'pois.add', { clientId: b.clientId, fields: { lat: 40.02, lng: -3.7, name: 'only b', categories: [7] } });
  return { a, b };
}

describe('backups of the live database', () => {
  it('takes a private backup (0600, folder 0700) named with its UTC time, listed newest first with date and size', async () => {
    const { core, dir, clock } = fileCore();
    await seed(core, 'a');
    const first = await op(core, 'backups.create', {});
    clock.advance(60_000);
    const second = await op(core, 'backups.create', {});
    expect(first.name).toBe('poi-manual-2026-01-15T12-00-00-000Z.sqlite');
    const view = await op(core, 'backups.list', {});
    expect(view.backups.map((b) => b.name)).toEqual([second.name, first.name]);
    expect(view.backups[0]).toMatchObject({ kind: 'manual', takenAt: '2026-01-15T12:01:00.000Z' });
    expect(view.backups[0]!.bytes).toBe(statSync(join(dir, 'backups', second.name)).size);
    expect(view.backups[0]!.bytes).toBeGreaterThan(4096);
    expect(mode(join(dir, 'backups'))).toBe(0o700);
    // One self-contained file each: no WAL, no shared memory, no leftovers.
    expect(readdirSync(join(dir, 'backups')).sort()).toEqual([first.name, second.name]);
    for (const name of [first.name, second.name]) expect(mode(join(dir, 'backups', name))).toBe(0o600);
  });

  it('are listed by the refusal of a damaged database, with how to put one back by hand', async () => {
    const { core, file } = fileCore();
    const { name } = await op(core, 'backups.create', {});
    cores.splice(cores.indexOf(core), 1);
    core.close();
    writeFileSync(file, 'not a database any more '.repeat(400));
    expect(() => openDatabase(file)).toThrow(new RegExp(`is damaged[\\s\\S]*backups/${name.replace(/\./g, '\\.')}[\\s\\S]*stop the application and copy it over`));
  });

  it('has none in memory, and says so', async () => {
    const core = openCore({ file: ':memory:', clock: new PinnedClock() });
    cores.push(core);
    expect(await op(core, 'backups.list', {})).toMatchObject({ backups: [], folder: null });
    expect(await dispatch(core.console, 'backups.create', {})).toMatchObject({ ok: false, error: { code: 422, description: 'EXCEPTION_BACKUP_REFUSED' } });
  });

  it('takes a daily backup when the last is a day old, keeps the last N daily ones, and never prunes manual ones', async () => {
    const { core, clock } = fileCore();
    await seed(core, 'a');
    await op(core, 'backups.configure', { keepDaily: 3 });
    const manual = await op(core, 'backups.create', {});
    // configure took the first daily backup: the folder had none.
    expect((await op(core, 'backups.list', {})).backups.filter((b) => b.kind === 'daily')).toHaveLength(1);
    clock.advance(23 * 3600_000);
    expect(await core.backups.dailyIfDue()).toBeUndefined();
    for (let day = 0; day < 5; day++) {
      clock.advance(24 * 3600_000);
      expect(await core.backups.dailyIfDue()).toMatchObject({ kind: 'daily' });
    }
    const view = await op(core, 'backups.list', {});
    const daily = view.backups.filter((b) => b.kind === 'daily');
    expect(daily.map((b) => b.takenAt)).toEqual(['2026-01-21T11:00:00.000Z', '2026-01-20T11:00:00.000Z', '2026-01-19T11:00:00.000Z']);
    expect(view.backups.some((b) => b.name === manual.name)).toBe(true);
    expect(view.keepDaily).toBe(3);
    // Fewer kept: pruned at once. None: no more taken.
    expect((await op(core, 'backups.configure', { keepDaily: 1 })).backups.filter((b) => b.kind === 'daily')).toHaveLength(1);
    await op(core, 'backups.configure', { keepDaily: 0 });
    clock.advance(48 * 3600_000);
    expect(await core.backups.dailyIfDue()).toBeUndefined();
  });

  it('a backup taken under parallel HTTP writes passes integrity_check, and the service answers meanwhile', async () => {
    // Enough pages that the online backup takes many steps (100 pages each) with writes between them.
    const { f, dir } = await fileServer(800);
    dirs.push(dir);
    try {
      const pages = f.t.core.db.pragma('page_count', { simple: true });
      expect(pages).toBeGreaterThan(300);
      const load = writeLoad(f);
      await load.more(50);
      const count = (): number => f.t.core.db.prepare<[], number>('SELECT count(*) FROM pois').pluck().get() ?? 0;
      const before = count();
      const backup = await load.during(() => f.t.core.backups.create('manual'));
      await load.stop();
      const after = count();
      const copy = new BetterSqlite3(join(dir, 'backups', backup.name), { readonly: true });
      try {
        expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
        const inCopy = copy.prepare('SELECT count(*) FROM pois').pluck().get() as number;
        expect(inCopy).toBeGreaterThanOrEqual(before);
        expect(inCopy).toBeLessThanOrEqual(after);
      } finally {
        copy.close();
      }
      const answeredDuring = load.answers.filter((a) => a.during && a.status === 200).length;
      console.log(`backup under load: ${pages} pages, ${answeredDuring} adds answered while it ran, ${after - before} POIs added meanwhile`);
      expect(answeredDuring).toBeGreaterThan(0);
      expect(load.answers.every((a) => a.status === 200)).toBe(true);
    } finally {
      await f.t.close();
    }
  });
});

describe('restore', () => {
  it('brings back exactly the state of the backup (every table), after backing up the current state; caches follow', async () => {
    const { core, dir, file } = fileCore();
    const a = await seed(core, 'a');
    const backup = await op(core, 'backups.create', {});
    const atBackup = tableDump(join(dir, 'backups', backup.name));
    const mapBefore = await op(core, 'pois.map', { clientId: a.clientId, south: -90, north: 90, west: -180, east: 180, zoom: 18 });
    const versionBefore = await op(core, 'pois.version', {});

    // Everything changes: a new client (and its token), POIs added, deleted, a category renamed, settings.
    const b = await seed(core, 'b');
    await op(core, 'pois.delete', { clientId: a.clientId, poi: a.poi });
    await op(core, 'backups.configure', { keepDaily: 2 });
    expect(core.resolveCaller('admin', { accessToken: b.admin, origin: '127.0.0.1' })).toBeDefined();
    const mapChanged = await op(core, 'pois.map', { clientId: a.clientId, south: -90, north: 90, west: -180, east: 180, zoom: 18 });
    expect(mapChanged.total).toBe(mapBefore.total - 1);
    const beforeRestore = tableDump(file);
    expect(beforeRestore).not.toEqual(atBackup);

    const job = await op(core, 'backups.restore', { name: backup.name });
    // Answered at once, as a job that has not replaced anything yet.
    expect(job).toMatchObject({ kind: 'restore', state: 'running', label: backup.name });
    const ended = await core.jobs.whenDone(job.id);
    expect(ended).toMatchObject({ kind: 'restore', state: 'done', error: null });
    if (ended.kind !== 'restore' || ended.report === null) throw new Error('the restore made no report');
    const { saved } = ended.report;
    // Its end is kept, though the restore replaced the jobs table with the backup's.
    expect(core.jobs.get(job.id)).toMatchObject({ state: 'done', report: { restored: backup.name, saved } });

    // The data is the backup's; the jobs table too, with this restore's own row written again.
    expect(withoutJobs(tableDump(file))).toEqual(withoutJobs(atBackup));
    expect(jobsBeside(tableDump(file), atBackup)).toEqual([{ id: job.id, kind: 'restore', state: 'done' }]);
    // Through the core's own connection too (its statements, its snapshot).
    expect(withoutJobs(tableDump(core.db))).toEqual(withoutJobs(atBackup));
    expect(saved.kind).toBe('before-restore');
    // The backup taken first holds the data the restore replaced, and the restore's row, running
    // (restored one day, it says this restore did not finish: jobs/recover.ts).
    expect(withoutJobs(tableDump(join(dir, 'backups', saved.name)))).toEqual(withoutJobs(beforeRestore));
    expect(jobsBeside(tableDump(join(dir, 'backups', saved.name)), beforeRestore)).toEqual([{ id: job.id, kind: 'restore', state: 'running' }]);
    expect(mode(join(dir, 'backups', saved.name))).toBe(0o600);
    // No cache serves what the restore removed.
    expect(await op(core, 'pois.map', { clientId: a.clientId, south: -90, north: 90, west: -180, east: 180, zoom: 18 })).toEqual(mapBefore);
    expect(await op(core, 'pois.version', {})).not.toBe(versionBefore);
    expect(() => core.resolveCaller('admin', { accessToken: b.admin, origin: '127.0.0.1' })).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    expect((await op(core, 'clients.list', {})).map((c) => c.name)).toEqual(['Client a']);
    // The core writes on after it, and the restored state is what it writes on.
    await op(core, 'pois.add', { clientId: a.clientId, fields: { lat: 1, lng: 1, name: 'after', categories: [7] } });
    expect(core.db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(readdirSync(join(dir, 'backups')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('under parallel HTTP writes: every write is answered at once (200, or 503 while the copy holds the lock) and the file stays sound', async () => {
    const { f, dir } = await fileServer(400);
    dirs.push(dir);
    try {
      const backup = await f.t.core.backups.create('manual');
      const load = writeLoad(f);
      await load.more(40);
      await load.during(() => f.t.core.backups.restore(f.t.core.backups.pathOf(backup.name)));
      await load.more(40);
      await load.stop();
      const statuses = [...new Set(load.answers.map((a) => a.status))].sort();
      const slowest = Math.max(...load.answers.map((a) => a.ms));
      console.log(`restore under load: ${load.answers.length} adds, statuses ${statuses.join(', ')}, slowest ${slowest.toFixed(0)} ms`);
      expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
      // Without the restore's busy_timeout = 0, a write in the copy's first turn froze the service for 5 s.
      expect(slowest).toBeLessThan(2_500);
      expect(f.t.core.db.pragma('integrity_check', { simple: true })).toBe('ok');
      // The restored POIs are there, and the writes after it were made on top of them.
      expect(f.t.core.db.prepare("SELECT count(*) FROM pois WHERE name LIKE 'ballast %'").pluck().get()).toBe(400);
    } finally {
      await f.t.close();
    }
  });

  it('another core on the file (as another process would) answers for the restored clients, whose rowids differ, not the ones it knew', async () => {
    const { core, dir, file, clock } = fileCore();
    const { a, b } = await twoClients(core);
    const otherProcess = openCore({ file, clock });
    cores.push(otherProcess);
    // A backup from another computer: the same clients, created in the other order. The R*Tree
    // and the map's cells know a client by its rowid, so they follow.
    const swapped = join(dir, 'swapped.sqlite');
    await core.backups.create('manual', swapped);
    const raw = openDatabase(swapped);
    const rowidOf = (client: string): number => raw.prepare<[string], number>('SELECT rowid FROM clients WHERE id = ?').pluck().get(client)!;
    const [ra, rb] = [rowidOf(a.clientId), rowidOf(b.clientId)];
    const swap = (table: string, column: string): void => {
      raw.prepare(`UPDATE ${table} SET ${column} = -${column} WHERE ${column} IN (?, ?)`).run(ra, rb);
      raw.prepare(`UPDATE ${table} SET ${column} = CASE ${column} WHEN -? THEN ? ELSE ? END WHERE ${column} < 0`).run(ra, rb, ra);
    };
    swap('clients', 'rowid');
    swap('map_cells', 'client');
    // As migration 006 keys them: the client's rowid ± 0.25.
    raw.exec(`UPDATE pois_rtree SET min_client = k - 0.25, max_client = k + 0.25
      FROM (SELECT p.id AS poi, c.rowid AS k FROM pois p JOIN clients c ON c.id = p.client_id) WHERE poi = pois_rtree.id`);
    raw.close();
    const ids = (client: string) =>
      core.db.prepare<[string], number>('SELECT id FROM pois WHERE client_id = ? ORDER BY id').pluck().all(client);
    const aIds = ids(a.clientId);
    expect(aIds).toHaveLength(5);
    const view = { clientId: a.clientId, south: -90, north: 90, west: -180, east: 180 };
    const near = { lat: 40, lng: -3.7, radius: 100_000, total: 50 };
    const nearIds = async (who: OpenCore): Promise<number[]> => (await who.queries.near(a.clientId, near)).map((p) => p.id).sort((x, y) => x - y);
    // The other process has asked about client a before the restore.
    expect((await op(otherProcess, 'pois.map', { ...view, zoom: 3 })).total).toBe(5);
    expect(await nearIds(otherProcess)).toEqual(aIds);

    await core.backups.restore(swapped);

    for (const who of [core, otherProcess]) {
      // Clustered from the map's cells, one at a time from the R*Tree, and the nearest: a's POIs, never b's.
      const clustered = await op(who, 'pois.map', { ...view, zoom: 3 });
      expect(clustered.total).toBe(5);
      const single = await op(who, 'pois.map', { ...view, south: 39.9, north: 40.1, west: -3.8, east: -3.6, zoom: 18 });
      expect(single.points.map((p) => p.poi).sort((x, y) => x! - y!)).toEqual(aIds);
      expect(await nearIds(who)).toEqual(aIds);
    }
    expect(ids(b.clientId)).toHaveLength(6);
  });

  it('restores a backup of another page size, converted first, with its clients keyed as before', async () => {
    const { core, dir, file } = fileCore();
    const { a, b } = await twoClients(core);
    const other = join(dir, 'other-page-size.sqlite');
    await core.backups.create('manual', other);
    const raw = new BetterSqlite3(other);
    raw.pragma('journal_mode = DELETE');
    raw.pragma('page_size = 8192');
    raw.exec('VACUUM');
    expect(raw.pragma('page_size', { simple: true })).toBe(8192);
    raw.close();
    const expected = tableDump(other);
    await seed(core, 'c');
    await core.backups.restore(other);
    expect(tableDump(file)).toEqual(expected);
    expect(core.db.pragma('page_size', { simple: true })).toBe(4096);
    // The conversion is a VACUUM, which keeps the rowids of a table with an index (clients has its
    // key's): the R*Tree and the map's cells, keyed by them, still name the right clients.
    const view = { south: -90, north: 90, west: -180, east: 180, zoom: 3 };
    expect((await op(core, 'pois.map', { clientId: a.clientId, ...view })).total).toBe(5);
    expect((await op(core, 'pois.map', { clientId: b.clientId, ...view })).total).toBe(6);
    expect(await core.queries.near(b.clientId, { lat: 40.02, lng: -3.7, radius: 10, total: 10 })).toHaveLength(2);
  });

  it('sweeps at start what a restore killed mid-way left (its copy, WAL and shared memory), not what a running restore uses', async () => {
    const { core, dir, file } = fileCore();
    await op(core, 'backups.create', {});
    core.close();
    cores.splice(cores.indexOf(core), 1);
    // A process that has ended: its pid names no running restore.
    const gone = spawnSync(process.execPath, ['-e', 'process.pid']).pid!;
    const folder = join(dir, 'backups');
    const dead = `.restore-1700000000000-${gone}.sqlite`;
    const alive = `.restore-1700000000000-${process.pid}.sqlite`;
    for (const f of [dead, `${dead}-wal`, `${dead}-shm`, alive]) writeFileSync(join(folder, f), 'a copy in progress');
    cores.push(openCore({ file }));
    // Before: the copy of a killed restore (as big as the database) stayed for good.
    expect(readdirSync(folder).filter((f) => f.startsWith('.restore-'))).toEqual([alive]);
  });

  it('restores a file the CLI names (written with --out, which refuses to overwrite)', async () => {
    const { core, dir, file } = fileCore();
    await seed(core, 'a');
    const outside = join(dir, 'elsewhere.sqlite');
    await core.backups.create('manual', outside);
    expect(mode(outside)).toBe(0o600);
    await expect(core.backups.create('manual', outside)).rejects.toThrow(/already exists/);
    const expected = tableDump(outside);
    await seed(core, 'b');
    await core.backups.restore(outside);
    expect(tableDump(file)).toEqual(expected);
  });

  it('upgrades a backup of an older schema as the application would, then restores it', async () => {
    const { core, dir } = fileCore();
    await seed(core, 'a');
    const old = join(dir, 'old.sqlite');
    openDatabase(old, { migrations: MIGRATIONS.slice(0, 3) }).close();
    await core.backups.restore(old);
    expect(core.db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(await op(core, 'clients.list', {})).toEqual([]);
    expect(core.db.pragma('integrity_check', { simple: true })).toBe('ok');
  });

  describe('refuses, changing nothing and leaving no backup', () => {
    const cases: Array<[string, (path: string, good: string) => void, RegExp]> = [
      ['a damaged file', (path, good) => {
        const bytes = readFileSync(good);
        // Pages 3 onwards overwritten: the header still says SQLite, the b-trees are garbage.
        bytes.fill(0x5a, 4096 * 2, Math.min(bytes.length, 4096 * 6));
        writeFileSync(path, bytes);
      }, /damaged|malformed|not a database/],
      ['a file that is no database', (path) => writeFileSync(path, 'just some text, not SQLite at all '.repeat(300)), /not a SQLite database/],
      ['a database of a newer schema', (path, good) => {
        copyFileSync(good, path);
        const db = new BetterSqlite3(path);
        db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
        db.close();
      }, /newer version of the application \(schema \d+; this version knows up to \d+\)/],
      ['a SQLite database that is not ours', (path) => {
        const db = new BetterSqlite3(path);
        db.exec('CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES (1)');
        db.close();
      }, /not a database of this application/],
      ['a database of ours with its tables changed', (path, good) => {
        copyFileSync(good, path);
        const db = new BetterSqlite3(path);
        db.exec('CREATE TABLE extra (x TEXT)');
        db.close();
      }, /its tables differ/],
    ];
    for (const [what, make, message] of cases) {
      it(what, async () => {
        const { core, dir, file } = fileCore();
        await seed(core, 'a');
        const good = join(dir, 'good.sqlite');
        await core.backups.create('manual', good);
        // Placed in the folder under a backup's name, so the console's restore by name reaches it.
        const { name } = await op(core, 'backups.create', {});
        make(join(dir, 'candidate'), good);
        copyFileSync(join(dir, 'candidate'), join(dir, 'backups', name));
        const state = tableDump(file);
        const folder = readdirSync(join(dir, 'backups')).sort();
        // Answered at once as a job, which the check of the file then fails, saying why.
        const job = await op(core, 'backups.restore', { name });
        const ended = await core.jobs.whenDone(job.id);
        expect(ended).toMatchObject({ state: 'failed', report: null, error: expect.stringMatching(message) });
        expect(ended.error).toMatch(/nothing was changed/);
        // Nothing changed but the job's own row, which says it failed.
        expect(withoutJobs(tableDump(file))).toEqual(withoutJobs(state));
        expect(jobsBeside(tableDump(file), state)).toEqual([{ id: job.id, kind: 'restore', state: 'failed' }]);
        expect(readdirSync(join(dir, 'backups')).sort()).toEqual(folder);
      });
    }

    it('a name that is not a backup of the list (a path)', async () => {
      const { core } = fileCore();
      expect(await dispatch(core.console, 'backups.restore', { name: '../poi.sqlite' })).toMatchObject({ ok: false, error: { code: 400, parameter: 'name' } });
      expect(await dispatch(core.console, 'backups.restore', { name: 'poi-manual-2020-01-01T00-00-00-000Z.sqlite' })).toMatchObject({
        ok: false,
        error: { code: 404 },
      });
      expect(existsSync(join(core.backups.folder ?? '', '..', 'poi.sqlite'))).toBe(true);
    });
  });
});
