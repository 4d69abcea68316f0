import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openCore } from '../support/core.js';
import { fillPois } from './fill.js';
import { fmt, time, type Timing } from './stats.js';

export interface PoiBenchResult {
  pois: number;
  fillSeconds: number;
  databaseMiB: number;
  nearRadiusM: number;
  near: Timing;
  nearCategory: Timing;
  nearBaseline: Timing;
  rssMiB: number;
}

/**
 * get_near queries on a database of `count` POIs, through the core function the HTTP route
 * calls (full replies; map views are measured by map.ts and scale.ts). The baseline
 * is the same near query answered without the R*Tree (a scan of the client's rows), measured on
 * the same database in the same run.
 */
export function benchPois(count: number, log: (line: string) => void = console.log): PoiBenchResult {
  const dir = mkdtempSync(join(tmpdir(), 'poi-bench-'));
  const file = join(dir, 'bench.sqlite');
  const core = openCore({ file, geocoder: { reverse: async () => ({}) } });
  try {
    log(`filling ${count.toLocaleString('en')} POIs...`);
    const filled = fillPois(core, count);
    core.db.pragma('wal_checkpoint(TRUNCATE)');
    core.db.exec('ANALYZE');
    const { clientId, samples } = filled;
    const at = (i: number) => samples[i % samples.length]!;
    const radius = 1000;
    const near = time(2000, 200, (i) => core.queries.near(clientId, { lat: at(i)[0], lng: at(i)[1], radius, total: 100 }));
    const nearCategory = time(1000, 100, (i) =>
      core.queries.near(clientId, { lat: at(i)[0], lng: at(i)[1], radius, total: 100, categories: [3] }),
    );
    const scan = core.db.prepare(
      `SELECT id, lat, lng FROM pois NOT INDEXED WHERE client_id = ? AND lat BETWEEN ? AND ? AND lng BETWEEN ? AND ?`,
    );
    const nearBaseline = time(20, 2, (i) => {
      const [lat, lng] = at(i);
      return scan.all(clientId, lat - 0.01, lat + 0.01, lng - 0.013, lng + 0.013);
    });
    const databaseMiB = statSync(file).size / 2 ** 20;
    const result: PoiBenchResult = {
      pois: count,
      fillSeconds: filled.fillMs / 1000,
      databaseMiB,
      nearRadiusM: radius,
      near,
      nearCategory,
      nearBaseline,
      rssMiB: process.memoryUsage().rss / 2 ** 20,
    };
    log(`filled in ${result.fillSeconds.toFixed(1)} s; database ${databaseMiB.toFixed(0)} MiB`);
    log(`get_near r=${radius} m, total<=100      median ${fmt(near.median)} ms   p99 ${fmt(near.p99)} ms   (${near.runs} runs)`);
    log(`get_near + category filter         median ${fmt(nearCategory.median)} ms   p99 ${fmt(nearCategory.p99)} ms`);
    log(`baseline: same box without R*Tree  median ${fmt(nearBaseline.median)} ms   (${(nearBaseline.median / near.median).toFixed(0)}x slower)`);
    return result;
  } finally {
    core.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
