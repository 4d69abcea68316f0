import BetterSqlite3 from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isImportJob, REPORT_ENTRIES_SHOWN, type ImportJob, type JobView } from '../../shared/jobs.js';
import { openCore, type OpenCore } from '../support/core.js';

/**
 * Imports as jobs (main/core/jobs/jobs.ts, main/core/imports/import-job.ts), on a real SQLite
 * file: the start answers at once, progress moves, a Cancel at half-way or a file that breaks off
 * leaves the client exactly as it was, the report is kept across a reopen, and an import the
 * process was SIGKILLed in is undone at the next start.
 */
const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
const cores: OpenCore[] = [];
afterEach(() => {
  for (const core of cores.splice(0)) core.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fileCore(dir = mkdtempSync(join(tmpdir(), 'poi-jobs-'))): { core: OpenCore; dir: string; file: string } {
  if (!dirs.includes(dir)) dirs.push(dir);
  const file = join(dir, 'poi.sqlite');
  const core = openCore({ file });
  cores.push(core);
  return { core, dir, file };
}

/** A CSV of `rows` POIs spread over a city (no two alike), with a category by name. */
function csvFile(dir: string, rows: number, tail = ''): string {
  const file = join(dir, `pois-${rows}.csv`);
  const lines = ['name,lat,lng,category_names'];
  for (let i = 0; i < rows; i++) lines.push(`Place ${i},${(40 + (i % 300) * 0.001).toFixed(4)},${(-3.7 - Math.floor(i / 300) * 0.001).toFixed(4)},Imported`);
  writeFileSync(file, `${lines.join('\n')}\n${tail}`);
  return file;
}

/** What a client holds, in every table a POI import touches (the change log apart). */
/** A job that must be an import's, as its report says. */
const imported = (job: JobView): ImportJob => {
  if (!isImportJob(job)) throw new Error(`job ${job.id} is a ${job.kind}`);
  return job;
};

const holdings = (core: OpenCore, clientId: string) => ({
  pois: core.db.prepare('SELECT uuid, name, lat, lng, category_ids FROM pois WHERE client_id = ? ORDER BY uuid').all(clientId),
  categories: core.db.prepare('SELECT id, description FROM categories WHERE client_id = ? ORDER BY id').all(clientId),
});

describe('import jobs', () => {
  it('answers at once; a Cancel at half-way undoes every row written and the client is as it was; the report is kept across a reopen', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Cancelled' }).client_id;
    await core.console['pois.add']({ clientId: client, fields: { name: 'Already here', lat: 40.5, lng: -3.5, categories: [2], geocode: false } });
    const before = holdings(core, client);
    const file = csvFile(dir, 20_000);

    const job = core.startImport(client, { path: file, name: 'pois.csv', temporary: false }, 'csv', { createCategories: true });
    // Nothing has run yet: the answer came before any of the work.
    expect(job).toMatchObject({ kind: 'import', state: 'running', label: 'pois.csv', progress: { rows: 0, bytes: 0 } });
    expect(job.progress.totalBytes).toBeGreaterThan(400_000);

    // Half-way by the job's own progress, with batches already committed.
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const now = core.jobs.get(job.id);
      expect(now.state).toBe('running');
      if (now.progress.rows >= 10_000) break;
    }
    expect(core.db.prepare('SELECT count(*) FROM pois WHERE client_id = ?').pluck().get(client)).toBeGreaterThan(1);
    expect(core.jobs.cancel(job.id).progress.cancelling).toBe(true);
    const ended = await core.jobs.whenDone(job.id);
    expect(ended).toMatchObject({ state: 'cancelled', report: { cancelled: true, undone: true, failed: null, createdCategories: ['Imported'] } });
    expect(imported(ended).report!.rows).toBeLessThan(20_000);
    expect(holdings(core, client)).toEqual(before);

    core.close();
    cores.splice(cores.indexOf(core), 1);
    const again = fileCore(dir).core;
    expect(again.jobs.get(job.id)).toMatchObject({ state: 'cancelled', report: { undone: true, importId: job.id } });
    expect(again.jobs.list(client).map((j) => j.id)).toEqual([job.id]);
  }, 60_000);

  it('a file that breaks off part-way fails as a whole: nothing of it stays, and the report says where', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Broken' }).client_id;
    const before = holdings(core, client);
    const file = csvFile(dir, 3_000, '"Unclosed quote,40,-3,Imported\n');
    const job = core.startImport(client, { path: file, name: 'broken.csv', temporary: false }, 'csv', { createCategories: true });
    const ended = await core.jobs.whenDone(job.id);
    expect(ended).toMatchObject({ state: 'failed', error: expect.stringMatching(/^After row 3000, the file cannot be read: .*Quote Not Closed/), report: { undone: true } });
    // Batches were committed before the damage was found, and undone.
    expect(imported(ended).report!.added).toBeGreaterThan(0);
    expect(holdings(core, client)).toEqual(before);
  }, 60_000);

  it('a Check only writes nothing, counts rows naming categories it would create, and is kept as a check', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Checked' }).client_id;
    const job = core.startImport(client, { path: csvFile(dir, 1_500), name: 'check.csv', temporary: false }, 'csv', { dryRun: true, createCategories: true });
    const ended = await core.jobs.whenDone(job.id);
    expect(ended).toMatchObject({ kind: 'check', state: 'done', report: { added: 1_500, dryRun: true }, progress: { rows: 1_500 } });
    expect(ended.progress.bytes).toBe(ended.progress.totalBytes);
    expect(holdings(core, client)).toEqual({ pois: [], categories: [] });
  });

  it('an import the process was SIGKILLed in is undone at the next start, and kept as interrupted', async () => {
    const { core, dir, file: database } = fileCore();
    const client = core.clients.create({ name: 'Killed' }).client_id;
    const before = holdings(core, client);
    core.close();
    cores.length = 0;
    const file = csvFile(dir, 60_000);
    const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'pois', 'import', file, '--client', client, '--create-categories', '--data', dir], { cwd: root, stdio: 'ignore' });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    // Killed once some batches are committed and before the end.
    const watcher = new BetterSqlite3(database, { readonly: true });
    const written = watcher.prepare('SELECT count(*) FROM pois WHERE client_id = ?').pluck();
    try {
      const deadline = Date.now() + 60_000;
      while ((written.get(client) as number) < 2_000 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(written.get(client) as number).toBeGreaterThanOrEqual(2_000);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      expect(written.get(client) as number).toBeLessThan(60_000);
    } finally {
      watcher.close();
      child.kill('SIGKILL');
    }

    const next = fileCore(dir).core;
    expect(holdings(next, client)).toEqual(before);
    const [job] = next.jobs.list(client);
    expect(job).toMatchObject({ kind: 'import', state: 'interrupted', error: expect.stringMatching(/^The app stopped while this import ran: the \d+ changes it had made were undone\.$/) });
  }, 120_000);

  it('a file that cannot be read fails its job, without taking the process down; a Cancel ends a job that waits for a file that never comes', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Unreadable' }).client_id;
    // A directory: opening it for reading fails (EISDIR) after the job has started.
    const job = core.startImport(client, { path: dir, name: 'a folder', temporary: false }, 'csv', {});
    const ended = await core.jobs.whenDone(job.id);
    expect(ended).toMatchObject({ state: 'failed', error: expect.stringMatching(/the file could not be read \(.*EISDIR/) });

    // A source that sends its header and then nothing, as a stalled network drive would.
    const stalled = new Readable({ read() {} });
    stalled.push('name,lat,lng,categories\nFirst,40,-3,7\n');
    const controller = new AbortController();
    const running = core.importPois(client, stalled, 'csv', { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    expect(await running).toMatchObject({ cancelled: true, added: 0, failed: null });
    expect(stalled.destroyed).toBe(true);
  });

  it('takes a job for dead by its start (same pid, another start), or by a heartbeat a minute old (a pid reused by another program); one process claims it', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Recovered' }).client_id;
    const before = holdings(core, client);
    const csv = (n: string) => Readable.from([Buffer.from(`name,lat,lng,categories\n${n} 1,40.1,-3.1,7\n${n} 2,40.2,-3.2,7\n`)]);
    const rowOf = (id: string, pid: number, seenAt: number) => ({
      id, kind: 'import', client_id: client, label: 'x.csv', target: null, state: 'running', pid, instance: 'an earlier start', seen_at: seenAt, started_at: seenAt, ended_at: null,
      progress: JSON.stringify({ rows: 0, bytes: 0, totalBytes: null, cancelling: false, undoing: null }), report: null, error: null,
    });
    const insert = core.db.prepare('INSERT INTO jobs VALUES (@id, @kind, @client_id, @label, @target, @state, @pid, @instance, @seen_at, @started_at, @ended_at, @progress, @report, @error)');
    const samePid = '01900000-0000-7000-8000-000000000001';
    const reusedPid = '01900000-0000-7000-8000-000000000002';
    const alive = '01900000-0000-7000-8000-000000000003';
    await core.importPois(client, csv('Same pid'), 'csv', { importId: samePid });
    await core.importPois(client, csv('Reused pid'), 'csv', { importId: reusedPid });
    await core.importPois(client, csv('Alive'), 'csv', { importId: alive });
    // This very pid, written by an earlier start of it (a container's pid 1); pid 1 alive but silent for an hour; pid 1, seen just now.
    insert.run(rowOf(samePid, process.pid, Date.now()));
    insert.run(rowOf(reusedPid, 1, Date.now() - 3_600_000));
    insert.run(rowOf(alive, 1, Date.now()));
    core.close();
    cores.length = 0;

    const next = fileCore(dir).core;
    expect(next.jobs.get(samePid)).toMatchObject({ state: 'interrupted', error: expect.stringMatching(/were undone/) });
    expect(next.jobs.get(reusedPid)).toMatchObject({ state: 'interrupted', error: expect.stringMatching(/were undone/) });
    // Another live process's job is left to it.
    expect(next.jobs.get(alive)).toMatchObject({ state: 'running' });
    const names = (holdings(next, client).pois as Array<{ name: string }>).map((p) => p.name).sort();
    expect(names).toEqual([...(before.pois as Array<{ name: string }>).map((p) => p.name), 'Alive 1', 'Alive 2'].sort());
  });

  it('runs one import at a time per client, and refuses a restore while an import runs', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'One at a time' }).client_id;
    const backup = await core.backups.create('manual');
    const file = csvFile(dir, 20_000);
    const job = core.startImport(client, { path: file, name: 'first.csv', temporary: false }, 'csv', { createCategories: true });
    expect(() => core.startImport(client, { path: file, name: 'second.csv', temporary: false }, 'csv', {})).toThrow(/the import of first\.csv into this client is running: wait for it to end, or cancel it/);
    await expect(core.backups.restore(join(dir, 'backups', backup.name))).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/cannot restore now: the import of first\.csv is running/) });
    core.jobs.cancel(job.id);
    expect(await core.jobs.whenDone(job.id)).toMatchObject({ state: 'cancelled' });
    // Once it has ended, another may start.
    const again = core.startImport(client, { path: file, name: 'second.csv', temporary: false }, 'csv', { dryRun: true, createCategories: true });
    expect((await core.jobs.whenDone(again.id)).state).toBe('done');
  }, 60_000);

  it('lists jobs with the first entries of their reports, and gives the whole report one job at a time', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Listed' }).client_id;
    const file = join(dir, 'bad.csv');
    writeFileSync(file, `name,lat,lng,categories\n${Array.from({ length: 30 }, (_, i) => `Bad ${i},91,-3,7`).join('\n')}\n`);
    const job = core.startImport(client, { path: file, name: 'bad.csv', temporary: false }, 'csv', {});
    await core.jobs.whenDone(job.id);
    expect(core.jobs.get(job.id).report).toMatchObject({ refusedCount: 30, refused: expect.any(Array) });
    expect(imported(core.jobs.get(job.id)).report!.refused).toHaveLength(30);
    const [listed] = core.jobs.list(client);
    expect(listed!.report).toMatchObject({ refusedCount: 30 });
    expect(imported(listed!).report!.refused).toHaveLength(REPORT_ENTRIES_SHOWN);
  });

  it("lists a report's first causes of refusal, and gives them all one job at a time", async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Causes' }).client_id;
    const file = join(dir, 'causes.csv');
    // 25 categories the client does not have, two rows each: 25 causes.
    writeFileSync(file, `name,lat,lng,category_names\n${Array.from({ length: 50 }, (_, i) => `Row ${i},40,-3,Missing ${i % 25}`).join('\n')}\n`);
    const job = core.startImport(client, { path: file, name: 'causes.csv', temporary: false }, 'csv', {});
    await core.jobs.whenDone(job.id);
    const groups = imported(core.jobs.get(job.id)).report!.refusedGroups!;
    expect(groups).toHaveLength(25);
    expect(groups[0]).toEqual({ count: 2, reason: '2 rows name the category “Missing 0”, which does not exist: create it, or import with Create missing categories' });
    const [listed] = core.jobs.list(client);
    expect(imported(listed!).report!.refusedGroups).toEqual(groups.slice(0, REPORT_ENTRIES_SHOWN));
  });

  it('finishes at the next start an undo of an import that the app died in', async () => {
    const { core, dir } = fileCore();
    const client = core.clients.create({ name: 'Undo died' }).client_id;
    const report = await core.importPois(client, Readable.from([Buffer.from('name,lat,lng,categories\nOne,40.1,-3.1,7\nTwo,40.2,-3.2,7\n')]), 'csv');
    // As a crash leaves it: the undo job's row running, from a start whose process is gone, nothing reversed yet.
    core.db
      .prepare('INSERT INTO jobs VALUES (@id, @kind, @client_id, @label, @target, @state, @pid, @instance, @seen_at, @started_at, @ended_at, @progress, @report, @error)')
      .run({
        id: '01900000-0000-7000-8000-0000000000aa', kind: 'undo-import', client_id: client, label: 'the undo of x.csv', target: report.importId, state: 'running',
        pid: 2 ** 22 + 7, instance: 'an earlier start', seen_at: Date.now(), started_at: Date.now(), ended_at: null,
        progress: JSON.stringify({ rows: 0, bytes: 0, totalBytes: null, cancelling: false, undoing: null }), report: null, error: null,
      });
    core.close();
    cores.length = 0;
    const next = fileCore(dir).core;
    expect(holdings(next, client).pois).toEqual([]);
    expect(next.jobs.get('01900000-0000-7000-8000-0000000000aa')).toMatchObject({ state: 'interrupted', error: 'The app stopped while this undo ran; it was finished since: 2 more changes reversed.' });
  });
});
