import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { MAX_VIEW_POINTS, type MapView } from '../../shared/contract.js';
import { openCore } from '../support/core.js';
import { fillPois, type Filled } from './fill.js';
import { send, type Req } from './http.js';
import { memoryOf, startService, type Child, type Memory } from './server-child.js';
import { screenBox } from './screen.js';
import { percentile, prng, randomIds } from './stats.js';
import { findWrk, luaFixed, luaGet, luaNear, luaViewport, runWrk, type LoadResult } from './wrk.js';

/** The time the request log gives the first `request` (method and path), waiting up to 2 s for its line. */
async function loggedMs(logFile: string, request: string): Promise<number | null> {
  const line = new RegExp(`^${request} \\d+ ([\\d.]+)ms$`, 'm');
  for (let waited = 0; waited < 2000; waited += 50) {
    const found = line.exec(readFileSync(logFile, 'utf8'));
    if (found) return Number(found[1]);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

/** Latencies of requests sent one after another, in milliseconds. */
export interface Sequential {
  runs: number;
  p50: number;
  p99: number;
  max: number;
}

export interface MapViewFigure extends Sequential {
  zoom: number;
  area: 'dense' | 'sparse';
  /** The most points any of these views sent. */
  maxPoints: number;
}

export interface ScaleBenchResult {
  pois: number;
  fillSeconds: number;
  databaseMiB: number;
  /** The serving child 1 s after listening (the POIs filled, nothing asked yet). */
  afterFill: Memory;
  /** The first map view a freshly started server answers, over several starts. */
  firstView: Sequential;
  /** The same views' times in the server's request log, start by start (null: no line). */
  firstViewInServer: Array<number | null>;
  views: MapViewFigure[];
  /** A map view right after an add.json in it. */
  viewAfterWrite: Sequential;
  nearDense: Sequential;
  nearSparse: Sequential;
  /** MiB of the database file in the OS page cache just before the near queries; null without fincore. */
  cachedMiB: number | null;
  /** get_where with a text that no POI holds: the whole client read, in slices (sliced-scan.ts). */
  search: Sequential;
  /** The serving child after every view and query above. */
  afterViews: Memory;
  /** get.json alone, and while other connections send dense near queries and map views (wrk). */
  getAlone: LoadResult | null;
  getUnderHeavy: LoadResult | null;
  heavyNear: LoadResult | null;
  heavyViews: LoadResult | null;
  heavySearch: LoadResult | null;
}

export interface ScaleBenchOptions {
  dir: string;
  seconds: number;
  log: (line: string) => void;
}

/** How much of a file the OS page cache holds (util-linux's fincore); null where it cannot tell. */
function residentMiB(file: string): number | null {
  const run = spawnSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], { encoding: 'utf8' });
  const bytes = Number(run.stdout?.trim());
  return run.status === 0 && Number.isFinite(bytes) ? bytes / 2 ** 20 : null;
}

const sequential = (samples: number[]): Sequential => {
  const sorted = [...samples].sort((a, b) => a - b);
  return { runs: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN };
};

/** Positions at least 0.3 degrees (about 30 km, 6 sigma of a city's spread) from every city: the scattered 30 %. */
function sparseSpots(filled: Filled, count: number): Array<[number, number]> {
  const rnd = prng(17);
  const spots: Array<[number, number]> = [];
  for (let tries = 0; spots.length < count && tries < 100_000; tries++) {
    const lat = 36 + rnd() * 24;
    const lng = -10 + rnd() * 40;
    if (filled.cities.every(([clat, clng]) => Math.hypot(clat - lat, (clng - lng) * Math.cos((lat * Math.PI) / 180)) > 0.3)) spots.push([lat, lng]);
  }
  return spots;
}

/**
 * A country's worth of POIs behind the real CLI: fills `count` POIs through the core's triggers
 * (R*Tree, category links, map grid, change log), serves the file in a child process and measures
 * over HTTP what a map and a near query cost there, what a write does to the next view, the
 * server's memory, and whether a plain get.json keeps its latency while heavy requests run.
 */
export async function benchScale(count: number, o: ScaleBenchOptions): Promise<ScaleBenchResult> {
  const dataDir = join(o.dir, 'scale');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'poi.sqlite');
  o.log(`scale: filling ${count.toLocaleString('en')} POIs into ${file}...`);
  const core = openCore({ file, geocoder: { reverse: async () => ({}) } });
  let filled: Filled;
  let token: string;
  let poi: number;
  try {
    filled = fillPois(core, count, 42, (done) => o.log(`  ${done.toLocaleString('en')} POIs`));
    token = core.clients.rotateAdminToken(filled.clientId);
    // No daily backup in the served children: it starts a minute after start and copies the
    // whole file (8.6 GiB at ten million, minutes of a core), so figures taken after that minute
    // would measure the copy beside the query. docs/performance.md says so.
    core.settings.setBackups({ keepDaily: 0 });
    poi = core.db.prepare<[], number>('SELECT max(id) FROM pois').pluck().get() ?? 1;
    core.db.pragma('wal_checkpoint(TRUNCATE)');
    core.db.exec('ANALYZE');
  } finally {
    core.close();
  }
  const databaseMiB = statSync(file).size / 2 ** 20;
  o.log(`scale: filled in ${(filled.fillMs / 1000).toFixed(0)} s, database ${databaseMiB.toFixed(0)} MiB`);
  const { clientId } = filled;
  const dense = filled.samples.slice(0, 400);
  const sparse = sparseSpots(filled, 400);
  const consoleTokenOf = (service: Child): string => {
    const found = [...readFileSync(service.logFile, 'utf8').matchAll(/#token=([A-Za-z0-9_-]+)/g)].at(-1)?.[1];
    if (!found) throw new Error('the service log shows no console token');
    return found;
  };
  const viewRequest = (consoleToken: string, [lat, lng]: readonly [number, number], zoom: number): Req => ({
    method: 'POST',
    path: '/console/api/pois.map',
    headers: { authorization: `Bearer ${consoleToken}` },
    json: { clientId, zoom, ...screenBox(lat, lng, zoom) },
  });
  const timed = async (port: number, req: Req, agent: Agent): Promise<{ ms: number; body: string }> => {
    const t0 = performance.now();
    const answer = await send(port, req, agent);
    const ms = performance.now() - t0;
    if (answer.status !== 200) throw new Error(`${req.path.split('?')[0]}: ${answer.status} ${answer.body.slice(0, 300)}`);
    return { ms, body: answer.body };
  };

  // The first view of a freshly started server, five starts. Beside each, the time the server's
  // own log gives it (from the request read to the answer sent): a gap between the two is time
  // before the server read the request (its event loop held by something else, or the machine).
  const first: number[] = [];
  const firstInServer: Array<number | null> = [];
  for (let start = 0; start < 5; start++) {
    const service = await startService(dataDir, join(o.dir, `scale-start-${start}.log`));
    try {
      const agent = new Agent({ keepAlive: true });
      first.push((await timed(service.port, viewRequest(consoleTokenOf(service), dense[start]!, 13), agent)).ms);
      agent.destroy();
      firstInServer.push(await loggedMs(service.logFile, 'POST /console/api/pois.map'));
    } finally {
      await service.stop();
    }
  }
  o.log(`scale: first view after start ${first.map((t, i) => `${t.toFixed(0)} (in the server ${firstInServer[i]?.toFixed(0) ?? '?'})`).join(', ')} ms`);

  const service = await startService(dataDir, join(o.dir, 'scale-service.log'));
  const agent = new Agent({ keepAlive: true });
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const afterFill = memoryOf(service.pid);
    const consoleToken = consoleTokenOf(service);
    const views: MapViewFigure[] = [];
    for (const zoom of [3, 8, 13, 17]) {
      for (const [area, spots] of [['dense', dense], ['sparse', sparse]] as const) {
        const samples: number[] = [];
        let maxPoints = 0;
        for (let i = 0; i < 200; i++) {
          const { ms, body } = await timed(service.port, viewRequest(consoleToken, spots[i % spots.length]!, zoom), agent);
          samples.push(ms);
          maxPoints = Math.max(maxPoints, (JSON.parse(body) as { value: MapView }).value.points.length);
        }
        const figure = { zoom, area, maxPoints, ...sequential(samples) };
        views.push(figure);
        o.log(`scale: map view zoom ${zoom} ${area}: p50 ${figure.p50.toFixed(1)} ms, p99 ${figure.p99.toFixed(1)} ms, at most ${maxPoints} points`);
      }
    }
    // A write in the view, then the view: whatever a write invalidates is paid here.
    const afterWrite: number[] = [];
    for (let i = 0; i < 50; i++) {
      const spot = dense[i % dense.length]!;
      const [lat, lng] = spot;
      await timed(service.port, { method: 'GET', path: `/1/pois/add.json?oauth_token=${token}&lat=${lat}&lng=${lng}&name=Write+${i}&categories=1` }, agent);
      afterWrite.push((await timed(service.port, viewRequest(consoleToken, spot, 13), agent)).ms);
    }
    const viewAfterWrite = sequential(afterWrite);
    o.log(`scale: view after a write p50 ${viewAfterWrite.p50.toFixed(1)} ms, p99 ${viewAfterWrite.p99.toFixed(1)} ms`);
    const near = async (spots: ReadonlyArray<readonly [number, number]>): Promise<Sequential> => {
      const samples: number[] = [];
      for (let i = 0; i < 400; i++) {
        const [lat, lng] = spots[i % spots.length]!;
        samples.push((await timed(service.port, { method: 'GET', path: `/1/pois/get_near.json?oauth_token=${token}&lat=${lat}&lng=${lng}&radius=1000&total=100` }, agent)).ms);
      }
      return sequential(samples);
    };
    // A near query reads about 120 pages of the file; from the disk they cost 5-10x more than from
    // the page cache, so the figures mean little without knowing how much of the file was held.
    const cachedMiB = residentMiB(file);
    const nearDense = await near(dense);
    const nearSparse = await near(sparse);
    o.log(`scale: get_near r=1 km total<=100 dense p50 ${nearDense.p50.toFixed(2)} ms, sparse p50 ${nearSparse.p50.toFixed(2)} ms`);
    const searchPath = `/1/pois/get_where.json?oauth_token=${token}&q=in+no+poi&total=10`;
    const searches: number[] = [];
    for (let i = 0; i < 10; i++) searches.push((await timed(service.port, { method: 'GET', path: searchPath }, agent)).ms);
    const search = sequential(searches);
    o.log(`scale: get_where q (no match, every POI read) p50 ${search.p50.toFixed(0)} ms`);
    const afterViews = memoryOf(service.pid);

    let getAlone: LoadResult | null = null;
    let getUnderHeavy: LoadResult | null = null;
    let heavyNear: LoadResult | null = null;
    let heavyViews: LoadResult | null = null;
    let heavySearch: LoadResult | null = null;
    if (findWrk()) {
      // Ids from all over the file, picked at random: one fixed URL would be a reply-cache hit every
      // time, which no user's traffic is.
      const ids = randomIds(poi, 10_000, 23);
      getAlone = await runWrk({ port: service.port, script: luaGet(token, ids, 1), connections: 4, seconds: o.seconds, dir: o.dir });
      [getUnderHeavy, heavyNear, heavyViews, heavySearch] = await Promise.all([
        runWrk({ port: service.port, script: luaGet(token, ids, 2), connections: 4, seconds: o.seconds, dir: o.dir }),
        runWrk({ port: service.port, script: luaNear(token, dense, 5000, 1000, 3), connections: 8, seconds: o.seconds, dir: o.dir }),
        runWrk({ port: service.port, script: luaViewport(consoleToken, clientId, [...dense, ...sparse], 4, [3, 8, 13, 17]), connections: 8, seconds: o.seconds, dir: o.dir }),
        // A text search takes its turn in the heavy lane slice by slice, behind the others: beside
        // them it takes longer than wrk's usual 5 s, and would be counted as a timeout, not a figure.
        runWrk({ port: service.port, script: luaFixed(searchPath), connections: 2, seconds: o.seconds, timeout: o.seconds, dir: o.dir }),
      ]);
      o.log(`scale: get.json p99 alone ${getAlone.p99.toFixed(1)} ms, beside heavy near, map views and text searches ${getUnderHeavy.p99.toFixed(1)} ms`);
    } else o.log('scale: get.json under heavy requests skipped, it needs wrk (apt-get install wrk)');
    return {
      pois: count,
      fillSeconds: filled.fillMs / 1000,
      databaseMiB,
      afterFill,
      firstView: sequential(first),
      firstViewInServer: firstInServer,
      views,
      viewAfterWrite,
      nearDense,
      nearSparse,
      cachedMiB,
      search,
      afterViews,
      getAlone,
      getUnderHeavy,
      heavyNear,
      heavyViews,
      heavySearch,
    };
  } finally {
    agent.destroy();
    await service.stop();
  }
}

/** The performance goals, by size: map views, memory, a get.json beside heavy work, get_near. */
export const SCALE_GOALS = { viewP99Ms: 100, hugeViewP99Ms: 250, points: MAX_VIEW_POINTS, rssMiB: 400, getUnderHeavyP99Ms: 50, hugeNearMedianMs: 5 } as const;
