import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Devices } from '../../main/central/devices.js';
import { startCentralServer } from '../../main/central/server.js';
import { migrateCentral } from '../../main/central/store/migrate.js';
import { centralPool } from '../../main/central/store/pool.js';
import { syncOnce } from '../../main/sync-client/client.js';
import { saveTarget } from '../../main/sync-client/credential.js';
import { openCore, type OpenCore } from '../support/core.js';
import { INSERTED } from '../../main/core/pois/poi-store.js';
import { MAX_PULL } from '../../shared/sync.js';
import { rawInsertSeconds, type StoredRow } from './raw-baseline.js';
import { postgresMissing, startPostgres } from '../support/postgres.js';
import { fillPois } from './fill.js';
import type { Row } from './table.js';

export interface SyncBenchResult {
  changes: number;
  /** A first sync of a desktop holding `changes` POIs: its snapshot pushed. */
  pushCreates: { ms: number; perSecond: number };
  /** `changes` updates from the change log pushed. */
  pushUpdates: { ms: number; perSecond: number };
  /** A desktop that never synced pulls the `changes` POIs (and, then, the updates). */
  pull: { ms: number; perSecond: number };
  /** The same rows as that pull wrote, inserted raw into a fresh file in pages of MAX_PULL rows per transaction (rawInsertSeconds), and the pull's ratio to it. */
  rawPull?: { ms: number; perSecond: number; ratio: number };
  /** A desktop's first full pull of `bigPull` POIs, in its own process: time and its peak resident memory. */
  firstPull: { pois: number; ms: number; perSecond: number; peakRssMiB: number };
}

const root = join(import.meta.dirname, '../..');
const run = promisify(execFile);

/** The peak resident memory of a process, sampled every 100 ms from /proc (KiB -> MiB). */
async function rssMiB(pid: number): Promise<number> {
  const { stdout } = await run('ps', ['-o', 'rss=', '-p', String(pid)]).catch(() => ({ stdout: '0' }));
  return Number(stdout.trim()) / 1024;
}

/** The goal of a fresh desktop's first pull against the raw insert of the same rows (docs/performance.md). */
export const PULL_TO_RAW_GOAL = 1.3;

/**
 * The raw insert a pull into `desktop` is held to: a fresh file with the same client row, then
 * every POI the pull wrote (read back from `desktop`, all of INSERTED's columns) inserted raw as
 * the sync actor, MAX_PULL rows per transaction (a pull applies each page in one). Seconds.
 */
function rawPullBaseline(desktop: OpenCore, clientId: string, dir: string): number {
  const rows = desktop.db.prepare<[string], StoredRow>(`SELECT ${INSERTED.join(', ')} FROM pois WHERE client_id = ? ORDER BY id`).all(clientId);
  const client = desktop.db.prepare<[string], Record<string, unknown>>('SELECT * FROM clients WHERE id = ?').get(clientId)!;
  const fresh = openCore({ file: join(dir, 'poi.sqlite') });
  try {
    const columns = Object.keys(client).filter((c) => c !== 'rowid');
    fresh.db.prepare(`INSERT INTO clients (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`).run(client);
    return rawInsertSeconds(fresh, rows, { kind: 'sync' }, MAX_PULL);
  } finally {
    fresh.close();
  }
}

/**
 * Sync rates against a throwaway PostgreSQL on this machine (test/support/postgres.ts: fsync off,
 * so these are the protocol's and the code's costs, not the disk's): push of creations and of
 * updates, pull, and a first full pull of a big client in a separate `sync` process.
 */
export async function benchSync(changes = 100_000, bigPull = 1_000_000, log: (s: string) => void = console.log): Promise<SyncBenchResult | undefined> {
  const missing = postgresMissing();
  if (missing) {
    log(`sync: skipped, ${missing}`);
    return undefined;
  }
  const pg = await startPostgres();
  const pool = centralPool(pg.url);
  const dirs = [mkdtempSync(join(tmpdir(), 'poi-bench-sync-a-')), mkdtempSync(join(tmpdir(), 'poi-bench-sync-b-')), mkdtempSync(join(tmpdir(), 'poi-bench-sync-c-')), mkdtempSync(join(tmpdir(), 'poi-bench-sync-raw-'))];
  const a = openCore({ file: join(dirs[0]!, 'poi.sqlite') });
  const b = openCore({ file: join(dirs[1]!, 'poi.sqlite') });
  try {
    await migrateCentral(pool);
    const { app, url } = await startCentralServer(pool);
    try {
      const devices = new Devices(pool);
      const { clientId } = fillPois(a, changes);
      const ta = { url, credential: (await devices.add(clientId, 'A', 'bench')).credential };
      const tb = { url, credential: (await devices.add(clientId, 'B')).credential };

      let t0 = performance.now();
      await syncOnce(a, ta);
      const createMs = performance.now() - t0;
      log(`sync push, ${changes.toLocaleString('en')} POIs created (a first sync): ${createMs.toFixed(0)} ms (${((changes / createMs) * 1000).toFixed(0)} changes/s)`);

      t0 = performance.now();
      await syncOnce(b, tb);
      const pullMs = performance.now() - t0;
      log(`sync pull, ${changes.toLocaleString('en')} POIs to a desktop that never synced: ${pullMs.toFixed(0)} ms (${((changes / pullMs) * 1000).toFixed(0)} rows/s)`);

      // Every POI edited once on A, through the write path (so the log has one update each).
      const ids = a.db.prepare<[string], number>('SELECT id FROM pois WHERE client_id = ?').pluck().all(clientId);
      for (let i = 0; i < ids.length; i += 1000) {
        const page = a.store.rows(clientId, ids.slice(i, i + 1000));
        a.writes.now({ kind: 'console' }, () => page.forEach((row) => a.store.update({ ...row, phone: `+34 ${row.id}`, updated_at: row.updated_at + 1 })));
      }
      t0 = performance.now();
      await syncOnce(a, ta);
      const updateMs = performance.now() - t0;
      log(`sync push, ${changes.toLocaleString('en')} updates from the change log: ${updateMs.toFixed(0)} ms (${((changes / updateMs) * 1000).toFixed(0)} changes/s)`);

      // A big client straight into the central, then a new desktop's first pull in its own process.
      const big = '00000000-0000-4000-8000-00000000b16b';
      await pool.query("INSERT INTO clients (id, name) VALUES ($1, 'big')", [big]);
      await pool.query(
        `INSERT INTO pois (uuid, client_id, name, lat, lng, categories, registered_at, updated_at)
         SELECT gen_random_uuid(), $1, 'Big ' || i, 36 + (i % 2400) / 100.0, -10 + (i / 2400) % 4000 / 100.0, ARRAY['system:2'], now(), now()
         FROM generate_series(1, $2) AS i`,
        [big, bigPull],
      );
      saveTarget(dirs[2]!, { url, credential: (await devices.add(big, 'C')).credential });
      t0 = performance.now();
      const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'sync', '--data', dirs[2]!], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
      let peak = 0;
      const sampler = setInterval(() => void rssMiB(child.pid!).then((m) => (peak = Math.max(peak, m))), 100);
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      clearInterval(sampler);
      const firstMs = performance.now() - t0;
      if (code !== 0) throw new Error(`the first pull's sync process exited ${code}`);
      log(`sync first pull, ${bigPull.toLocaleString('en')} POIs into a new desktop (its own process, start included): ${firstMs.toFixed(0)} ms (${((bigPull / firstMs) * 1000).toFixed(0)} rows/s), peak resident memory ${peak.toFixed(0)} MiB`);
      // Last: it holds this process's event loop, the central's too (an idle keep-alive socket was reset meanwhile).
      const rawMs = rawPullBaseline(b, clientId, dirs[3]!) * 1000;
      const rawPull = { ms: rawMs, perSecond: (changes / rawMs) * 1000, ratio: pullMs / rawMs };
      log(`sync pull's baseline: a raw insert of the ${changes.toLocaleString('en')} rows it wrote, ${MAX_PULL.toLocaleString('en')} per transaction as the pull's pages: ${rawMs.toFixed(0)} ms; the pull is ${rawPull.ratio.toFixed(2)}x (goal <= ${PULL_TO_RAW_GOAL}x)`);
      return {
        changes,
        pushCreates: { ms: createMs, perSecond: (changes / createMs) * 1000 },
        pushUpdates: { ms: updateMs, perSecond: (changes / updateMs) * 1000 },
        pull: { ms: pullMs, perSecond: (changes / pullMs) * 1000 },
        rawPull,
        firstPull: { pois: bigPull, ms: firstMs, perSecond: (bigPull / firstMs) * 1000, peakRssMiB: peak },
      };
    } finally {
      await app.close();
    }
  } finally {
    a.close();
    b.close();
    await pool.end();
    await pg.remove();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  }
}

const rawRow = (n: string, raw: NonNullable<SyncBenchResult['rawPull']>): Row =>
  [`  raw insert of the same ${n} rows, ${MAX_PULL.toLocaleString('en')} per transaction`, 'timed', `${raw.perSecond.toFixed(0)} rows/s`, `${raw.ms.toFixed(0)} ms`, `pull ${raw.ratio.toFixed(2)}x`, '', '', `<=${PULL_TO_RAW_GOAL}x ${raw.ratio <= PULL_TO_RAW_GOAL ? 'met' : 'NOT met'}`];

/** The sync figures, each beside the same figure of a baseline commit run in the same bench (`--baseline REF`) when there is one. */
export function syncRows(s: SyncBenchResult | undefined, baseline?: { result: SyncBenchResult; ref: string }): Row[] {
  if (!s) return [];
  const n = s.changes.toLocaleString('en');
  const b = baseline?.result;
  // Within 10 % of the baseline (what sync's checks against lost edits may cost): a rate at least 0.9 x the baseline's.
  const against = (mine: number, theirs: number | undefined): [string, string, string] =>
    theirs === undefined ? ['', '', ''] : [`${theirs.toFixed(0)} (${baseline!.ref})`, `${(mine / theirs).toFixed(2)}x`, '>= 0.9x'];
  return [
    [`sync push, ${n} POIs created (first sync; local PostgreSQL, fsync off)`, 'timed', `${s.pushCreates.perSecond.toFixed(0)} changes/s`, `${s.pushCreates.ms.toFixed(0)} ms`, '', ...against(s.pushCreates.perSecond, b?.pushCreates.perSecond)],
    [`sync push, ${n} updates from the change log`, 'timed', `${s.pushUpdates.perSecond.toFixed(0)} changes/s`, `${s.pushUpdates.ms.toFixed(0)} ms`, '', ...against(s.pushUpdates.perSecond, b?.pushUpdates.perSecond)],
    [`sync pull, ${n} POIs (a desktop that never synced)`, 'timed', `${s.pull.perSecond.toFixed(0)} rows/s`, `${s.pull.ms.toFixed(0)} ms`, '', ...against(s.pull.perSecond, b?.pull.perSecond)],
    ...(s.rawPull ? [rawRow(n, s.rawPull)] : []),
    [`sync first pull, ${s.firstPull.pois.toLocaleString('en')} POIs (own process)`, 'timed', `${s.firstPull.perSecond.toFixed(0)} rows/s`, `${s.firstPull.ms.toFixed(0)} ms`, `peak RSS ${s.firstPull.peakRssMiB.toFixed(0)} MiB`, ...against(s.firstPull.perSecond, b?.firstPull.perSecond)],
  ];
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await benchSync(Number(process.argv[2] ?? 100_000), Number(process.argv[3] ?? 1_000_000));
