import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../main/data-dir.js';
import { categoryIds } from '../../main/core/pois/poi-row.js';
import { newUuid } from '../../main/core/store/new-uuid.js';
import { registerChangeFunctions } from '../../main/core/store/write-path.js';
import { foldText } from '../../shared/text-fold.js';
import { openCore } from '../support/core.js';
import { summarize, type Measured } from './http-bench.js';
import { median } from './http.js';
import { addOldTree, DEFAULT_OLD, fillWithTree, type Seeded } from './old-main.js';
import { ROOT, startReference, startService, type Child } from './server-child.js';
import { prng, randomIds } from './stats.js';
import type { Row } from './table.js';
import { findWrk, luaAdd, luaGet, runWrk, type LoadResult } from './wrk.js';

/**
 * The goals of the writes bench: add.json at least 1.5x the old main's (served beside it in the
 * same run), at least 0.9x a raw insert with the same triggers, p99 under 20 ms.
 */
export const WRITE_GOALS = { toOld: 1.5, toRaw: 0.9, p99Ms: 20 } as const;

/** The group commit's real size under 32 connections: rows per transaction in the raw baseline. */
export const RAW_BATCH = 18;

/** get.json connections beside the add.json load (the reads a user's other devices make meanwhile). */
const GET_CONNECTIONS = 8;

/** The servers the HTTP figures compare: this tree's service, the old main's, the reference. */
export type Server = 'current' | 'old' | 'reference';
const SERVERS: readonly Server[] = ['current', 'old', 'reference'];

/** What one add.json load cost the serving process, per request answered (from /proc). */
export interface AddProfile {
  /** User + system CPU of the serving process. */
  cpuMs: number;
  /** Bytes the process caused to be written to storage (/proc/PID/io write_bytes). */
  writeKiB: number;
  /** Write system calls (/proc/PID/io syscw): file writes and socket writes alike. */
  writeCalls: number;
}

export interface AddFigure extends Measured {
  profile: AddProfile;
}

export interface BesideFigure {
  add: Measured;
  get: Measured;
}

/** Rows per second of a raw insert, median of the rounds. */
export interface RawFigure {
  rows: number;
  rowsPerSecond: number;
  runs: number[];
}

export interface WritesBenchResult {
  /** POIs in every file before each measurement. */
  fill: number;
  old: { ref: string; commit: string };
  connections: number;
  add: Record<Server, AddFigure>;
  /** add.json while a second load asks get.json on random ids. */
  beside: Record<Server, BesideFigure> & { getConnections: number };
  raw: { batch: number; triggers: RawFigure; triggerFree: RawFigure };
  ratio: Ratios & { besideToOld: number };
  /** The same ratios round by round (each of one round's figures against the others of that round). */
  rounds: Ratios[];
}

export interface Ratios {
  toOld: number;
  toReference: number;
  toRaw: number;
  rawToTriggerFree: number;
}

export interface WritesBenchOptions {
  /** Scratch directory (data, logs, scripts); the caller removes it. */
  dir: string;
  seconds: number;
  warmup: number;
  rounds: number;
  connections: number;
  /** POIs in each file before the measurements. */
  fill: number;
  /** Rows of each raw-insert measurement. */
  rawRows: number;
  /** The commit served as the old main. */
  old?: string;
  log: (line: string) => void;
}

/** The administrator who makes add.json's writes, as the change log's triggers record it. */
const ADMINISTRATOR = { kind: 'administrator' } as const;

let ticks: number | undefined;
/** Clock ticks per second of /proc/PID/stat's times. */
function clockTicks(): number {
  ticks ??= Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout?.trim()) || 100;
  return ticks;
}

interface Counters {
  cpuSeconds: number;
  writeBytes: number;
  writeCalls: number;
}

/** CPU (utime + stime) and writes of a process so far; NaN where /proc does not tell. */
export function countersOf(pid: number): Counters {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command's closing parenthesis, from the state (field 3): utime is 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cpuSeconds = (Number(fields[11]) + Number(fields[12])) / clockTicks();
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string): number => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? NaN);
    return { cpuSeconds, writeBytes: field('write_bytes'), writeCalls: field('syscw') };
  } catch {
    return { cpuSeconds: NaN, writeBytes: NaN, writeCalls: NaN };
  }
}

function perRequest(before: Counters, after: Counters, requests: number): AddProfile {
  const n = Math.max(1, requests);
  return {
    cpuMs: ((after.cpuSeconds - before.cpuSeconds) * 1000) / n,
    writeKiB: (after.writeBytes - before.writeBytes) / 1024 / n,
    writeCalls: (after.writeCalls - before.writeCalls) / n,
  };
}

/** The rows a raw-insert measurement writes, made before the clock starts: add.json's columns. */
function rawRows(clientId: string, count: number, seed: number): Array<Record<string, string | number | null>> {
  const rnd = prng(seed);
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const name = `Raw ${i} ${Math.floor(rnd() * 1e6)}`;
    return {
      uuid: newUuid(now),
      client_id: clientId,
      name,
      lat: 36 + rnd() * 24,
      lng: -10 + rnd() * 40,
      category_ids: categoryIds([1 + Math.floor(rnd() * 30)]),
      created_by: null,
      now,
      name_key: foldText(name),
    };
  });
}

export interface RawRun {
  rowsPerSecond: number;
  /** Triggers on `pois` while it ran. */
  triggers: number;
  /** Rows the change log gained (the change log's trigger is one of those dropped). */
  changes: number;
  pois: number;
}

/**
 * One raw-insert measurement on a copy of `template` (a file filled by fillWithTree): the copy is
 * opened by this tree's core (its migrations, and the service's own pragmas, whatever they are
 * when the bench runs), then `rows` plain INSERTs of add.json's columns run in transactions of
 * RAW_BATCH rows, a savepoint per row, as the group commit does. `triggers: false` drops every
 * trigger on `pois` first (no R*Tree, category links, map grid or change log upkeep).
 */
export function rawInsert(template: string, clientId: string, rows: number, triggers: boolean, dir: string, seed = 1): RawRun {
  const file = join(dir, `raw-${process.pid}-${Date.now()}.sqlite`);
  copyFileSync(template, file);
  const core = openCore({ file, geocoder: { reverse: async () => ({}) } });
  try {
    const db = core.db;
    if (!triggers) {
      const names = db.prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'pois'").pluck().all();
      for (const name of names) db.exec(`DROP TRIGGER "${name.replaceAll('"', '""')}"`);
    }
    registerChangeFunctions(db, Date.now, () => ADMINISTRATOR);
    const insert = db.prepare(
      `INSERT INTO pois (uuid, client_id, name, lat, lng, category_ids, created_by, registered_at, updated_at, name_key)
       VALUES (@uuid, @client_id, @name, @lat, @lng, @category_ids, @created_by, @now, @now, @name_key)`,
    );
    const savepoint = db.transaction((row: Record<string, string | number | null>) => insert.run(row));
    const batch = db.transaction((slice: ReadonlyArray<Record<string, string | number | null>>) => {
      for (const row of slice) savepoint(row);
    });
    const countChanges = db.prepare<[], number>('SELECT count(*) FROM changes').pluck();
    const countPois = db.prepare<[], number>('SELECT count(*) FROM pois').pluck();
    const changesBefore = countChanges.get() ?? 0;
    const data = rawRows(clientId, rows, seed);
    const t0 = performance.now();
    for (let from = 0; from < data.length; from += RAW_BATCH) batch.immediate(data.slice(from, from + RAW_BATCH));
    const seconds = (performance.now() - t0) / 1000;
    return {
      rowsPerSecond: rows / seconds,
      triggers: db.prepare<[], number>("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'pois'").pluck().get() ?? 0,
      changes: (countChanges.get() ?? 0) - changesBefore,
      pois: countPois.get() ?? 0,
    };
  } finally {
    core.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
  }
}

const rps = (n: number): string => `${Math.round(n).toLocaleString('en')} req/s`;
const rowsPs = (n: number): string => `${Math.round(n).toLocaleString('en')} rows/s`;
const ms = (n: number): string => `${n < 10 ? n.toFixed(3) : n.toFixed(1)} ms`;
const x = (n: number): string => `${n.toFixed(2)}x`;
const verdict = (met: boolean, goal: string): string => `${met ? 'met' : 'NOT MET'} (${goal})`;
const clean = (m: Measured): boolean => m.non2xx === 0 && m.socketErrors === 0;
const errors = (m: Measured): string => (clean(m) ? '' : ` [${m.non2xx} non-2xx, ${m.socketErrors} socket errors]`);
const profileText = (p: AddProfile): string => `${p.cpuMs.toFixed(3)} ms CPU, ${p.writeKiB.toFixed(1)} KiB written, ${p.writeCalls.toFixed(1)} write calls per add`;

/** add.json of this tree against its baselines (requests or rows per second). */
const ratiosOf = (current: number, old: number, reference: number, raw: number, rawTriggerFree: number): Ratios => ({
  toOld: current / old,
  toReference: current / reference,
  toRaw: current / raw,
  rawToTriggerFree: raw / rawTriggerFree,
});

const line = (label: string, r: LoadResult, extra = ''): string =>
  `  ${label.padEnd(22)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms${extra}` +
  (r.non2xx || r.socketErrors ? `  non-2xx ${r.non2xx} socket errors ${r.socketErrors}` : '');

const medianProfile = (profiles: readonly AddProfile[]): AddProfile => ({
  cpuMs: median(profiles.map((p) => p.cpuMs)),
  writeKiB: median(profiles.map((p) => p.writeKiB)),
  writeCalls: median(profiles.map((p) => p.writeCalls)),
});

/**
 * add.json of this tree's service, of the old main (another commit served from a worktree the
 * bench makes and removes) and of the reference, alone and beside get.json on random ids, with
 * the raw insert with the same triggers and the trigger-free insert as baselines. Each tree's data
 * is filled once by its own code; every measurement then starts from a fresh copy of it (a
 * server started on the copy and warmed up, or a raw insert into it), so no figure pays for the
 * rows an earlier one added. Each figure is the median of `rounds` rounds whose order alternates.
 * Needs wrk.
 */
export async function benchWrites(o: WritesBenchOptions): Promise<WritesBenchResult> {
  if (!findWrk()) throw new Error('the writes bench needs wrk (apt-get install wrk)');
  const ref = o.old ?? DEFAULT_OLD;
  const old = addOldTree(ref);
  let serving: { child: Child; dataDir: string } | undefined;
  const stopServing = async (): Promise<void> => {
    if (!serving) return;
    const { child, dataDir } = serving;
    serving = undefined;
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    o.log(`writes: old main ${old.commit} checked out in ${old.tree}; filling each file with ${o.fill.toLocaleString('en')} POIs...`);
    // Filled once and never served: every measurement starts from a copy of one of these.
    const pristine = { current: join(o.dir, 'writes-current'), old: join(o.dir, 'writes-old') };
    for (const d of Object.values(pristine)) mkdirSync(d, { recursive: true, mode: 0o700 });
    const seeded: Record<'current' | 'old', Seeded> = {
      current: await fillWithTree(ROOT, join(pristine.current, DATABASE_FILE), o.fill),
      old: await fillWithTree(old.tree, join(pristine.old, DATABASE_FILE), o.fill),
    };
    o.log(`writes: filled in ${(seeded.current.fillMs / 1000).toFixed(1)} s (this tree), ${(seeded.old.fillMs / 1000).toFixed(1)} s (${old.commit})`);
    const template = join(pristine.current, DATABASE_FILE);
    const tokens: Record<Server, string> = { current: seeded.current.token, old: seeded.old.token, reference: seeded.current.token };
    const ids: Record<Server, number[]> = {
      current: randomIds(seeded.current.maxId, 10_000, 5),
      old: randomIds(seeded.old.maxId, 10_000, 5),
      reference: randomIds(seeded.current.maxId, 10_000, 5),
    };
    let started = 0;
    let seed = 100;
    /**
     * A server on a fresh copy of its tree's filled data, warmed up with add.json: each figure
     * starts from the same number of POIs, whatever the loads before it added. The reference
     * serves a copy of this tree's file (its schema), as in http-bench.ts.
     */
    const serve = async (server: Server): Promise<Child> => {
      await stopServing();
      const dataDir = join(o.dir, `writes-run-${++started}`);
      mkdirSync(dataDir, { mode: 0o700 });
      cpSync(server === 'old' ? pristine.old : pristine.current, dataDir, { recursive: true });
      const log = join(o.dir, `writes-${started}-${server}.log`);
      const child =
        server === 'reference'
          ? await startReference(join(dataDir, DATABASE_FILE), log)
          : await startService(dataDir, log, undefined, [], server === 'old' ? old.tree : ROOT);
      serving = { child, dataDir };
      await runWrk({ port: child.port, script: luaAdd(tokens[server], seed++), connections: o.connections, seconds: o.warmup, dir: o.dir });
      return child;
    };
    const add = async (server: Server): Promise<{ load: LoadResult; profile: AddProfile }> => {
      const { pid, port } = await serve(server);
      const before = countersOf(pid);
      const load = await runWrk({ port, script: luaAdd(tokens[server], seed++), connections: o.connections, seconds: o.seconds, dir: o.dir });
      return { load, profile: perRequest(before, countersOf(pid), load.requests) };
    };
    const beside = async (server: Server): Promise<[LoadResult, LoadResult]> => {
      const { port } = await serve(server);
      return Promise.all([
        runWrk({ port, script: luaAdd(tokens[server], seed++), connections: o.connections, seconds: o.seconds, dir: o.dir }),
        runWrk({ port, script: luaGet(tokens[server], ids[server], seed++), connections: GET_CONNECTIONS, seconds: o.seconds, dir: o.dir }),
      ]);
    };

    const runs = {
      add: { current: [], old: [], reference: [] } as Record<Server, LoadResult[]>,
      profile: { current: [], old: [], reference: [] } as Record<Server, AddProfile[]>,
      besideAdd: { current: [], old: [], reference: [] } as Record<Server, LoadResult[]>,
      besideGet: { current: [], old: [], reference: [] } as Record<Server, LoadResult[]>,
      raw: [] as number[],
      rawFree: [] as number[],
    };
    const roundRatios: Ratios[] = [];
    for (let round = 0; round < o.rounds; round++) {
      // Every other round in reverse: a slow spell of a shared machine falls on each alike.
      const order = round % 2 === 0 ? SERVERS : [...SERVERS].reverse();
      o.log(`writes, round ${round + 1} of ${o.rounds}: ${order.join(', ')} (each on a fresh copy, after ${o.warmup} s of warm-up)`);
      for (const server of order) {
        const { load, profile } = await add(server);
        runs.add[server].push(load);
        runs.profile[server].push(profile);
        o.log(line(`add.json ${server}`, load, `  ${profile.cpuMs.toFixed(3)} ms CPU, ${profile.writeKiB.toFixed(1)} KiB, ${profile.writeCalls.toFixed(1)} write calls per add`));
      }
      for (const server of order) {
        const [a, g] = await beside(server);
        runs.besideAdd[server].push(a);
        runs.besideGet[server].push(g);
        o.log(line(`add beside get ${server}`, a));
        o.log(line(`get beside add ${server}`, g));
      }
      await stopServing();
      for (const triggers of round % 2 === 0 ? [true, false] : [false, true]) {
        const raw = rawInsert(template, seeded.current.clientId, o.rawRows, triggers, o.dir, round + 1);
        (triggers ? runs.raw : runs.rawFree).push(raw.rowsPerSecond);
        o.log(`  raw insert ${triggers ? 'with triggers' : 'trigger-free'}: ${raw.rowsPerSecond.toFixed(0)} rows/s (${o.rawRows.toLocaleString('en')} rows, ${RAW_BATCH} per transaction)`);
      }
      const ratios = ratiosOf(runs.add.current.at(-1)!.rps, runs.add.old.at(-1)!.rps, runs.add.reference.at(-1)!.rps, runs.raw.at(-1)!, runs.rawFree.at(-1)!);
      roundRatios.push(ratios);
      o.log(`  this round: add.json ${x(ratios.toOld)} old, ${x(ratios.toReference)} reference, ${x(ratios.toRaw)} raw; raw ${x(ratios.rawToTriggerFree)} trigger-free`);
    }
    const addFigure = (server: Server): AddFigure => ({ ...summarize(runs.add[server]), profile: medianProfile(runs.profile[server]) });
    const addFigures: Record<Server, AddFigure> = { current: addFigure('current'), old: addFigure('old'), reference: addFigure('reference') };
    const besideFigure = (server: Server): BesideFigure => ({ add: summarize(runs.besideAdd[server]), get: summarize(runs.besideGet[server]) });
    const rawFigure = (values: number[]): RawFigure => ({ rows: o.rawRows, rowsPerSecond: median(values), runs: values });
    const raw = { batch: RAW_BATCH, triggers: rawFigure(runs.raw), triggerFree: rawFigure(runs.rawFree) };
    const besideFigures = { current: besideFigure('current'), old: besideFigure('old'), reference: besideFigure('reference'), getConnections: GET_CONNECTIONS };
    return {
      fill: o.fill,
      old: { ref, commit: old.commit },
      connections: o.connections,
      add: addFigures,
      beside: besideFigures,
      raw,
      ratio: {
        ...ratiosOf(addFigures.current.rps, addFigures.old.rps, addFigures.reference.rps, raw.triggers.rowsPerSecond, raw.triggerFree.rowsPerSecond),
        besideToOld: besideFigures.current.add.rps / besideFigures.old.add.rps,
      },
      rounds: roundRatios,
    };
  } finally {
    await stopServing();
    old.remove();
  }
}

/** The writes section of the bench's table. */
export function writesRows(w: WritesBenchResult | undefined): Row[] {
  if (!w) return [];
  const c = w.connections;
  const n = w.fill.toLocaleString('en');
  const { current, old, reference } = w.add;
  const load = (label: string, m: Measured, baseline = '', ratio = '', goal = ''): Row => [label + errors(m), m.tool, rps(m.rps), ms(m.p50), ms(m.p99), baseline, ratio, goal];
  const raw = (label: string, f: RawFigure, baseline = '', ratio = ''): Row => [label, 'in-process', rowsPs(f.rowsPerSecond), '', '', baseline, ratio, ''];
  const goalText = `>=${WRITE_GOALS.toOld}x old, >=${WRITE_GOALS.toRaw}x raw, p99<${WRITE_GOALS.p99Ms}ms`;
  const met = w.ratio.toOld >= WRITE_GOALS.toOld && w.ratio.toRaw >= WRITE_GOALS.toRaw && current.p99 < WRITE_GOALS.p99Ms && clean(current);
  const rows: Row[] = [
    load(`  add.json of the old main ${w.old.commit}, ${c} conn (${n} POIs first)`, old),
    load(`  add.json of the minimal reference, ${c} conn`, reference),
    raw(`  raw INSERT, all triggers, ${w.raw.batch} per transaction, savepoint each (${n} POIs first)`, w.raw.triggers, `trigger-free ${rowsPs(w.raw.triggerFree.rowsPerSecond)}`, `${x(w.ratio.rawToTriggerFree)} trigger-free`),
    load(`add.json, ${c} conn (median of ${current.runs.length})`, current, `old ${rps(old.rps)}; ref ${rps(reference.rps)}; raw ${rowsPs(w.raw.triggers.rowsPerSecond)}`,
      `${x(w.ratio.toOld)} old, ${x(w.ratio.toReference)} ref, ${x(w.ratio.toRaw)} raw`, verdict(met, goalText)),
  ];
  for (const server of SERVERS) {
    rows.push(['  add.json per request, ' + (server === 'current' ? 'this tree' : server === 'old' ? `old main ${w.old.commit}` : 'reference'), '/proc stat, io', profileText(w.add[server].profile), '', '', '', '', '']);
  }
  for (const server of SERVERS) {
    const b = w.beside[server];
    const who = server === 'current' ? '' : server === 'old' ? ` (old main ${w.old.commit})` : ' (reference)';
    const indent = server === 'current' ? '' : '  ';
    const ratio = `${x(b.add.rps / w.add[server].rps)} alone` + (server === 'current' ? `, ${x(w.ratio.besideToOld)} old` : '');
    rows.push(load(`${indent}add.json, ${c} conn, beside get.json on random ids${who}`, b.add, `alone ${rps(w.add[server].rps)}`, ratio));
    rows.push(load(`${indent}  get.json, ${w.beside.getConnections} conn, beside that add.json${who}`, b.get));
  }
  return rows;
}
