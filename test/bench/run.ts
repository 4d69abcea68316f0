import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchContention } from './contention.js';
import { benchHttp } from './http-bench.js';
import { benchPois } from './pois.js';
import { benchBasemap, basemapRows } from './basemap.js';
import { benchExports, exportRows } from './exports.js';
import { benchImports, importRows } from './imports.js';
import { benchSync, syncRows } from './sync.js';
import { benchSyncAgainst } from './sync-baseline.js';
import { benchMap, mapRows } from './map.js';
import { benchScale } from './scale.js';
import { buildRows, contentionRows, HEADERS, renderTable, scaleRows } from './table.js';
import { findWrk } from './wrk.js';
import { benchTls, tlsRows } from './tls.js';
import { benchWrites, writesRows } from './writes.js';
import { benchStreets, streetRows } from './streets.js';

/**
 * `npm run bench [-- --quick] [-- --huge] [-- --pois N] [-- --only http,tls,pois,contention,scale,map,basemap,exports,imports,sync,writes,streets] [-- --baseline REF [--rounds N]] [-- --old REF]`: measures the HTTP API
 * against a bare node:http server, login, HTTP against HTTPS, the POI queries on N POIs (default 1,000,000; 100,000
 * with --quick; 10,000,000 with --huge) and, served by the CLI on them, map views, near queries,
 * the serving process's memory and a get.json beside heavy requests; prints one table and writes it, with
 * every run, as JSON under test/bench/results/. HTTP loads come from wrk when it is on the PATH
 * (BENCH_NO_WRK=1 forces the Node generator). To see where the server spends its time:
 * `tsx test/bench/profile.ts --kind get|add`. The writes section (test/bench/writes.ts) serves the old main
 * (`--old REF`, default 39586ae) from a worktree beside this tree's service and the reference.
 */
const { values } = parseArgs({
  options: {
    pois: { type: 'string' },
    quick: { type: 'boolean', default: false },
    huge: { type: 'boolean', default: false },
    only: { type: 'string' },
    /** A commit whose sync bench runs beside this tree's, alternated, in the same run (sync only). */
    baseline: { type: 'string' },
    rounds: { type: 'string' },
    /** The commit the writes bench serves as the old main (test/bench/old-main.ts). */
    old: { type: 'string' },
  },
});
const quick = values.quick === true;
const huge = values.huge === true;
const count = Number(values.pois ?? (quick ? 100_000 : 1_000_000));
// --huge: the scale section (map views, near queries, memory behind the CLI) on 10,000,000 POIs.
const scaleCount = huge ? 10_000_000 : count;
if (!Number.isInteger(count) || count < 1000) throw new Error('--pois must be an integer of at least 1000');
const only = new Set((values.only ?? 'http,tls,pois,contention,scale,map,basemap,exports,imports,sync,writes,streets').split(','));
const plan = quick
  ? { seconds: 3, warmup: 1, repeats: 3, loginSeconds: 3, scaleSeconds: 3 }
  : { seconds: 10, warmup: 2, repeats: 3, loginSeconds: 5, scaleSeconds: 10 };
const connections = 32;

const scratch = mkdtempSync(join(tmpdir(), 'poi-bench-http-'));
const started = Date.now();
const loadAtStart = loadavg();
const cleanup = (): void => rmSync(scratch, { recursive: true, force: true });
process.once('SIGINT', () => {
  cleanup();
  process.exit(130);
});
try {
  const http = only.has('http')
    ? await benchHttp({ dir: scratch, connections, seconds: plan.seconds, warmup: plan.warmup, repeats: plan.repeats, loginSeconds: plan.loginSeconds, log: console.log })
    : undefined;
  // The same loads over the listener's plain and TLS ports (serve --https-port).
  const tls = only.has('tls') ? await benchTls({ dir: scratch, connections, seconds: plan.seconds, warmup: plan.warmup, repeats: plan.repeats, log: console.log }) : undefined;
  const pois = only.has('pois') ? benchPois(count) : undefined;
  const contention =
    only.has('contention') && findWrk()
      ? await benchContention({ dense: quick ? 50_000 : 200_000, seconds: plan.seconds, repeats: plan.repeats, dir: scratch, log: console.log })
      : undefined;
  if (only.has('contention') && !findWrk()) console.log('contention: skipped, it needs wrk (apt-get install wrk)');
  const scale = only.has('scale') ? await benchScale(scaleCount, { dir: scratch, seconds: plan.scaleSeconds, log: console.log }) : undefined;
  // The admin UI's map in Chromium against Leaflet.markercluster (100,000 POIs, or fewer with --quick).
  const map = only.has('map') ? await benchMap(quick ? 20_000 : 100_000, 3) : undefined;
  // Offline basemaps in Chromium: the sample city's vector package at zoom 15 against the bundled overview alone.
  const basemap = only.has('basemap') ? await benchBasemap(3) : undefined;
  // A client's POIs exported as CSV and GeoJSON (100,000 POIs, or 20,000 with --quick).
  const exports = only.has('exports') ? await benchExports(quick ? 20_000 : 100_000) : undefined;
  // Imports as jobs beside get.json probes (100,000 rows; 20,000 with --quick), and the peak memory of a 1 GB CSV (100 MB with --quick) and of a 200 MB GeoJSON feature.
  const imports = only.has('imports') ? await benchImports(quick ? 20_000 : 100_000, quick ? 1e8 : 1e9) : undefined;
  // Sync with a central PostgreSQL (throwaway cluster): push and pull of 100,000 changes, and a first pull of 1,000,000 POIs (20,000 and 100,000 with --quick).
  const syncSizes = [quick ? 20_000 : 100_000, quick ? 100_000 : 1_000_000] as const;
  const compared = only.has('sync') && values.baseline ? await benchSyncAgainst(values.baseline, ...syncSizes, Number(values.rounds ?? 3)) : undefined;
  const sync = compared?.current ?? (only.has('sync') ? await benchSync(...syncSizes) : undefined);
  // add.json of this tree, the old main and the reference, alone and beside get.json, with the raw-insert baselines (100,000 POIs first; 20,000 with --quick).
  const writesWanted = only.has('writes') && findWrk() !== null;
  if (only.has('writes') && !writesWanted) console.log('writes: skipped, it needs wrk (apt-get install wrk)');
  const writes = writesWanted
    ? await benchWrites({ dir: scratch, connections, seconds: plan.seconds, warmup: plan.warmup, rounds: plan.repeats, fill: quick ? 20_000 : 100_000, rawRows: quick ? 5_000 : 20_000, old: values.old, log: console.log })
    : undefined;
  // Street addresses offline from the sample city's tiles: reverse geocoding cold and warm (2,000 random points; 500 with --quick), and an import of 10,000 rows with and without --geocode.
  const streets = only.has('streets') ? await benchStreets(quick ? 500 : 2_000, 10_000) : undefined;
  const rows = [...buildRows(http, pois), ...tlsRows(tls), ...contentionRows(contention), ...scaleRows(scale, huge), ...mapRows(map), ...basemapRows(basemap), ...exportRows(exports), ...importRows(imports), ...syncRows(sync, compared && { result: compared.baseline, ref: compared.ref }), ...writesRows(writes), ...streetRows(streets)];
  const tool = findWrk() ?? 'Node keep-alive generator (no wrk on the PATH)';
  console.log('');
  console.log(renderTable(rows));
  console.log('');
  console.log(`HTTP figures: ${tool}; each serving process in its own child; ${plan.repeats} x ${plan.seconds} s per figure after ${plan.warmup} s warm-up, medians.`);
  console.log(`"core, in-process": timed calls of the core functions the routes use (test/bench/pois.ts). Machine: ${cpus().length} x ${cpus()[0]?.model ?? '?'}, load average ${loadAtStart[0]?.toFixed(2)} at start, ${loadavg()[0]?.toFixed(2)} at end.`);
  console.log(`Total ${((Date.now() - started) / 1000).toFixed(0)} s.`);
  const dir = join(import.meta.dirname, 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}${quick ? '-quick' : ''}.json`);
  const report = {
    date: new Date().toISOString(),
    node: process.version,
    quick,
    huge,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? null, loadAtStart, loadAtEnd: loadavg() },
    httpTool: tool,
    plan: { ...plan, connections, pois: count },
    table: { headers: HEADERS, rows },
    http,
    tls,
    pois,
    contention,
    scale,
    map,
    basemap,
    exports,
    imports,
    sync,
    syncBaseline: compared ? { ref: compared.ref, result: compared.baseline } : undefined,
    writes,
    streets,
  };
  writeFileSync(file, JSON.stringify(report, null, 2));
  console.log(`results written to ${file}`);
} finally {
  cleanup();
}
