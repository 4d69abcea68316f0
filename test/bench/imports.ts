import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import type { ImportJob } from '../../shared/jobs.js';
import { root } from '../support/child-server.js';
import { send } from './http.js';
import { percentile } from './stats.js';
import type { Row } from './table.js';
import { openCore } from '../support/core.js';
import { CONSOLE } from '../../main/core/store/write-path.js';
import { newUuid } from '../../main/core/store/new-uuid.js';
import { categoryIds, type PoiRow } from '../../main/core/pois/poi-row.js';
import { textKeys } from '../../main/core/pois/poi-store.js';
import { rawInsertSeconds, type StoredRow } from './raw-baseline.js';

/** The goals of docs/imports.md#measured: a get.json's p99 while an import (its check, its undo) runs, and the peak memory of huge files. */
export const IMPORT_GOALS = { p99Ms: 50, peakRssMiB: 400 } as const;

interface Probe {
  requests: number;
  p50: number;
  p99: number;
  max: number;
  seconds: number;
}

export interface ImportBenchResult {
  rows: number;
  quiet: Probe;
  check: Probe;
  import: Probe;
  undo: Probe;
  dense: Probe;
  /** The same import alone (no probes) in a fresh process and file, against the raw insert of its rows (rawImportBaseline). */
  alone: { importSeconds: number; rawSeconds: number; ratio: number };
  /** Peak RSS (MiB) of a fresh process importing a small file (the baseline), a ~1 GB CSV, and checking a GeoJSON whose one feature holds a 200 MB string. */
  rss: { smallMiB: number; bigCsvMiB: number; bigCsvBytes: number; bigCsvRows: number; featureMiB: number };
}

interface Child {
  process: ChildProcess;
  port: number;
  poi: number;
  admin: string;
  ask<T>(message: object): Promise<T>;
}

async function startChild(dir: string): Promise<Child> {
  const child = fork(join(root, 'test/bench/import-child.ts'), [dir], { cwd: root, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [hello] = (await once(child, 'message')) as [{ port: number; poi: number; admin: string }];
  return {
    process: child,
    ...hello,
    ask: async <T>(message: object): Promise<T> => {
      const reply = once(child, 'message') as Promise<[T & { error?: string }]>;
      child.send(message);
      const [value] = await reply;
      if (value.error) throw new Error(value.error);
      return value;
    },
  };
}

async function stopChild(child: Child): Promise<void> {
  const exited = once(child.process, 'exit');
  child.process.kill('SIGTERM');
  await exited;
}

/** get.json on two keep-alive connections, one request after another on each, until `work` ends; its latencies. */
async function probeDuring(child: Child, work: () => Promise<unknown>): Promise<Probe> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const path = `/1/pois/get.json?oauth_token=${child.admin}&poi=${child.poi}`;
  const times: number[] = [];
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      const t0 = performance.now();
      const r = await send(child.port, { method: 'GET', path }, agent);
      if (r.status !== 200) throw new Error(`get.json answered ${r.status}`);
      times.push(performance.now() - t0);
    }
  };
  const t0 = performance.now();
  const loops = [loop(), loop()];
  try {
    await work();
  } finally {
    running = false;
    await Promise.all(loops);
    agent.destroy();
  }
  const sorted = times.sort((a, b) => a - b);
  return { requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? 0, seconds: (performance.now() - t0) / 1000 };
}

/** Row `i` of the bench's CSVs: over a city, a grid of 1,000 by rows/1,000 points 0.001 degrees apart (as written: 4 decimals). */
const csvPlace = (i: number): { name: string; lat: string; lng: string } => ({
  name: `Place ${i}`,
  lat: (40 + (i % 1000) * 0.001).toFixed(4),
  lng: (-3.7 - Math.floor(i / 1000) * 0.001).toFixed(4),
});

/** The category every row of the bench's CSVs names (the import creates it). */
const BENCH_CATEGORY = 'Bench';
/** The description of the bench's timed rows (the CSV and the raw insert alike). */
export const DESC_BYTES = 40;

/** A CSV of `rows` POIs over a city, each with a description of `descBytes` characters. */
export async function writeCsv(file: string, rows: number, descBytes: number): Promise<void> {
  const out = createWriteStream(file);
  out.write(`name,lat,lng,category_names,desc\n`);
  const desc = 'd'.repeat(descBytes);
  for (let i = 0; i < rows; i++) {
    const { name, lat, lng } = csvPlace(i);
    const line = `${name},${lat},${lng},${BENCH_CATEGORY},${desc}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** 1,000 rows at one point with unlike 255-character names: the worst case of the duplicate check. */
async function writeDense(file: string): Promise<void> {
  const out = createWriteStream(file);
  out.write('name,lat,lng,category_names\n');
  for (let i = 0; i < 1_000; i++) {
    let seed = (i + 1) * 2_654_435_761;
    const name = Array.from({ length: 255 }, () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return 'abcdefghijklmnopqrstuvwxyz'[(seed >>> 0) % 26];
    }).join('');
    out.write(`${name},40.4,-3.7,Bench\n`);
  }
  out.end();
  await once(out, 'finish');
}

/** A FeatureCollection whose second feature holds a 200 MB string, written in pieces. */
async function writeHugeFeature(file: string): Promise<void> {
  const out = createWriteStream(file);
  const feature = (name: string): string => JSON.stringify({ type: 'Feature', geometry: { type: 'Point', coordinates: [-3.7, 40.4] }, properties: { name, categories: '1' } });
  out.write(`{"type":"FeatureCollection","features":[${feature('Before')},{"type":"Feature","geometry":{"type":"Point","coordinates":[-3.7,40.4]},"properties":{"name":"`);
  const piece = 'x'.repeat(1024 * 1024);
  for (let i = 0; i < 200; i++) if (!out.write(piece)) await once(out, 'drain');
  out.write(`"}},${feature('After')}]}`);
  out.end();
  await once(out, 'finish');
}

/** The goal of an import against the raw insert of its rows (docs/performance.md, docs/imports.md#measured). */
export const IMPORT_TO_RAW_GOAL = 1.3;

/**
 * The raw insert an import of `rows` CSV rows (writeCsv) is held to: a file that starts as the
 * import child's does (a client, its probe POI, the category the import creates), then the same
 * rows with the same columns as the import writes them (pois.ts newRow, folded keys included),
 * in ONE transaction (or `perTransaction` rows each), the change log's actor an import. Answers
 * the seconds of the inserts.
 */
export function rawImportBaseline(dir: string, rows: number, perTransaction = Infinity): number {
  const core = openCore({ file: join(dir, 'poi.sqlite') });
  try {
    const client = core.clients.create({ name: 'Import bench' });
    core.writes.now(CONSOLE, () => core.store.insert(emptyRow(client.client_id, 'Probe', 40.4, -3.7, [1])));
    const category = core.categories.add(client.client_id, { desc: BENCH_CATEGORY }, CONSOLE).Id;
    const desc = 'd'.repeat(DESC_BYTES);
    const data: StoredRow[] = Array.from({ length: rows }, (_, i) => {
      const { name, lat, lng } = csvPlace(i);
      const row = { ...emptyRow(client.client_id, name, Number(lat), Number(lng), [category]), description: desc };
      return { ...row, ...textKeys(row) };
    });
    return rawInsertSeconds(core, data, { kind: 'import', id: newUuid() }, perTransaction);
  } finally {
    core.close();
  }
}

/** A new POI's row with only a name, a position and categories (what an import of the bench's CSV writes besides the description). */
function emptyRow(clientId: string, name: string, lat: number, lng: number, categories: number[]): Omit<PoiRow, 'id'> {
  const now = Date.now();
  return {
    uuid: newUuid(), client_id: clientId, name, description: null, lat, lng, elevation: null, accuracy: null, vaccuracy: null, address: null, cross_street: null,
    city: null, country: null, postal_code: null, phone: null, twitter: null, category_ids: categoryIds(categories), created_by: null, registered_at: now, updated_at: now,
  };
}

/**
 * The import of `csv` (writeCsv's `rows` rows) alone, nothing beside it, in a fresh process and
 * file, against the raw insert of its rows into a fresh file (rawImportBaseline); `dir` holds
 * both files.
 */
export async function importAgainstRaw(csv: string, rows: number, dir: string): Promise<ImportBenchResult['alone']> {
  const lone = await startChild(mkdtempSync(join(dir, 'data-')));
  let importSeconds: number;
  try {
    const t0 = performance.now();
    await lone.ask<ImportJob>({ cmd: 'import', file: csv, format: 'csv', dryRun: false });
    importSeconds = (performance.now() - t0) / 1000;
  } finally {
    await stopChild(lone);
  }
  const rawSeconds = rawImportBaseline(mkdtempSync(join(dir, 'data-')), rows);
  return { importSeconds, rawSeconds, ratio: importSeconds / rawSeconds };
}

const mib = (bytes: number): number => bytes / 2 ** 20;

/**
 * What an import does to the rest of the service, in a process of its own (import-child.ts) on a
 * real SQLite file: get.json's latency while nothing else runs (the baseline), then during the
 * Check only of `rows` rows, their import, the undo of that import, and a Check only of 1,000
 * unlike long names at one point. Then the peak RSS of fresh processes importing a 1 MB CSV (the
 * baseline), a CSV of about `bigCsvBytes` (1 GB), and checking a GeoJSON with a 200 MB feature.
 */
export async function benchImports(rows = 100_000, bigCsvBytes = 1e9, log: (s: string) => void = console.log): Promise<ImportBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'poi-bench-imports-'));
  try {
    const csv = join(dir, 'rows.csv');
    await writeCsv(csv, rows, DESC_BYTES);
    const dense = join(dir, 'dense.csv');
    await writeDense(dense);
    const child = await startChild(mkdtempSync(join(dir, 'data-')));
    let result: Omit<ImportBenchResult, 'rss' | 'alone'>;
    try {
      const quiet = await probeDuring(child, () => new Promise((resolve) => setTimeout(resolve, 5_000)));
      log(`imports: get.json alone: p99 ${quiet.p99.toFixed(1)} ms (${quiet.requests} requests)`);
      const check = await probeDuring(child, () => child.ask<ImportJob>({ cmd: 'import', file: csv, format: 'csv', dryRun: true }));
      log(`  during a Check only of ${rows.toLocaleString('en')} rows (${check.seconds.toFixed(1)} s): p99 ${check.p99.toFixed(1)} ms, max ${check.max.toFixed(0)} ms`);
      let job: ImportJob | undefined;
      const imported = await probeDuring(child, async () => (job = await child.ask<ImportJob>({ cmd: 'import', file: csv, format: 'csv', dryRun: false })));
      log(`  during their import (${imported.seconds.toFixed(1)} s, ${job!.report!.added.toLocaleString('en')} added): p99 ${imported.p99.toFixed(1)} ms, max ${imported.max.toFixed(0)} ms`);
      const undo = await probeDuring(child, () => child.ask({ cmd: 'undo', importId: job!.id }));
      log(`  during its undo (${undo.seconds.toFixed(1)} s): p99 ${undo.p99.toFixed(1)} ms, max ${undo.max.toFixed(0)} ms`);
      const denseProbe = await probeDuring(child, () => child.ask<ImportJob>({ cmd: 'import', file: dense, format: 'csv', dryRun: true }));
      log(`  during a Check only of 1,000 unlike 255-character names at one point (${denseProbe.seconds.toFixed(1)} s): p99 ${denseProbe.p99.toFixed(1)} ms, max ${denseProbe.max.toFixed(0)} ms`);
      result = { rows, quiet, check, import: imported, undo, dense: denseProbe };
    } finally {
      await stopChild(child);
    }
    const alone = await importAgainstRaw(csv, rows, dir);
    log(`  import of ${rows.toLocaleString('en')} rows alone: ${alone.importSeconds.toFixed(2)} s; raw insert of the same rows in one transaction: ${alone.rawSeconds.toFixed(2)} s; ${alone.ratio.toFixed(2)}x (goal <= ${IMPORT_TO_RAW_GOAL}x)`);

    const peak = async (file: string, format: 'csv' | 'geojson', dryRun: boolean): Promise<{ mib: number; job: ImportJob }> => {
      const fresh = await startChild(mkdtempSync(join(dir, 'data-')));
      try {
        const job = await fresh.ask<ImportJob>({ cmd: 'import', file, format, dryRun });
        return { mib: mib((await fresh.ask<{ maxRss: number }>({ cmd: 'rss' })).maxRss), job };
      } finally {
        await stopChild(fresh);
      }
    };
    const small = join(dir, 'small.csv');
    await writeCsv(small, 1_000, 900);
    const smallPeak = await peak(small, 'csv', false);
    const bigRows = Math.round(bigCsvBytes / 1_000);
    const big = join(dir, 'big.csv');
    await writeCsv(big, bigRows, 940);
    const bigBytes = statSync(big).size;
    const bigPeak = await peak(big, 'csv', false);
    rmSync(big);
    log(`  peak RSS: importing a 1 MB CSV ${smallPeak.mib.toFixed(0)} MiB; a ${(bigBytes / 1e9).toFixed(2)} GB CSV (${bigPeak.job.report!.added.toLocaleString('en')} added) ${bigPeak.mib.toFixed(0)} MiB`);
    const huge = join(dir, 'huge-feature.geojson');
    await writeHugeFeature(huge);
    const featurePeak = await peak(huge, 'geojson', true);
    log(`  peak RSS: checking a GeoJSON whose feature holds a 200 MB string: ${featurePeak.mib.toFixed(0)} MiB (${featurePeak.job.report!.refused.length} refused)`);
    return { ...result, alone, rss: { smallMiB: smallPeak.mib, bigCsvMiB: bigPeak.mib, bigCsvBytes: bigBytes, bigCsvRows: bigRows, featureMiB: featurePeak.mib } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function importRows(r: ImportBenchResult | undefined): Row[] {
  if (!r) return [];
  const ms = (n: number): string => `${n.toFixed(1)} ms`;
  const goal = (p: Probe): string => `p99<${IMPORT_GOALS.p99Ms}ms ${p.p99 < IMPORT_GOALS.p99Ms ? 'met' : 'NOT met'}`;
  const during = (label: string, p: Probe): Row => [
    `get.json during ${label} (${p.seconds.toFixed(1)} s, 2 conn)`, 'Node probe', `${p.requests.toLocaleString('en')} req`, ms(p.p50), ms(p.p99), `alone: p99 ${ms(r.quiet.p99)}`, `max ${p.max.toFixed(0)} ms`, goal(p),
  ];
  const n = r.rows.toLocaleString('en');
  const rss = (label: string, value: number): Row => [label, 'maxRSS', `${value.toFixed(0)} MiB`, '', '', `1 MB CSV: ${r.rss.smallMiB.toFixed(0)} MiB`, '', `<${IMPORT_GOALS.peakRssMiB} MiB ${value < IMPORT_GOALS.peakRssMiB ? 'met' : 'NOT met'}`];
  return [
    [`import of ${n} rows alone, against a raw insert of its rows (one transaction)`, 'timed', `${(r.rows / r.alone.importSeconds).toFixed(0)} rows/s`, `${r.alone.importSeconds.toFixed(2)} s`, '', `raw ${r.alone.rawSeconds.toFixed(2)} s`, `${r.alone.ratio.toFixed(2)}x`, `<=${IMPORT_TO_RAW_GOAL}x ${r.alone.ratio <= IMPORT_TO_RAW_GOAL ? 'met' : 'NOT met'}`],
    during(`a Check only of ${n} rows`, r.check),
    during(`the import of ${n} rows`, r.import),
    during(`the undo of that import`, r.undo),
    during('a Check only of 1,000 unlike 255-character names at one point', r.dense),
    rss(`peak RSS importing a ${(r.rss.bigCsvBytes / 1e9).toFixed(2)} GB CSV (${r.rss.bigCsvRows.toLocaleString('en')} rows)`, r.rss.bigCsvMiB),
    rss('peak RSS checking a GeoJSON with a 200 MB feature', r.rss.featureMiB),
  ];
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await benchImports(Number(process.argv[2] ?? 100_000), Number(process.argv[3] ?? 1e9));
