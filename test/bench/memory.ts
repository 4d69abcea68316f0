import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openCore } from '../support/core.js';
import { fillPois } from './fill.js';
import { nodeLoad, send, type Req } from './http.js';
import { memoryOf, startService, type Memory } from './server-child.js';
import { prng } from './stats.js';
import { findWrk, luaNear, luaViewport, runWrk, type LoadResult } from './wrk.js';

export interface MemoryBenchResult {
  pois: number;
  fillSeconds: number;
  databaseMiB: number;
  /** The serving child 1 s after it listens, before any query. */
  started: Memory;
  /** Seconds from "listening" until a get_near is answered within 100 ms (start-up warm-up done). */
  responsiveAfterSeconds: number;
  /** The serving child once responsive. */
  warmed: Memory;
  /** The serving child after the loads below. */
  loaded: Memory;
  /** get_near over HTTP on the big database: r = 1 km, total <= 100, then r = 5 km, total <= 1000. */
  near1km: LoadResult;
  near5km: LoadResult;
  /** The admin UI's map viewport over HTTP, when the listener has that route (else null). */
  viewport: LoadResult | null;
}

export interface MemoryBenchOptions {
  dir: string;
  seconds: number;
  warmup: number;
  connections: number;
  log: (line: string) => void;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Fills a data directory with `count` POIs through the core (in this process, on a file), closes
 * it, serves it with the real CLI in a child process, sends get_near (and map viewport) requests
 * over HTTP for a while, and reads the child's resident memory from /proc/PID/status.
 */
export async function benchMemory(count: number, o: MemoryBenchOptions): Promise<MemoryBenchResult> {
  const dataDir = join(o.dir, 'big');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, 'poi.sqlite');
  o.log(`memory: filling ${count.toLocaleString('en')} POIs into ${file}...`);
  const core = openCore({ file, geocoder: { reverse: async () => ({}) } });
  let token: string;
  let clientId: string;
  let samples: Array<[number, number]>;
  let fillMs: number;
  try {
    const filled = fillPois(core, count);
    clientId = filled.clientId;
    token = core.clients.rotateAdminToken(clientId);
    samples = filled.samples;
    fillMs = filled.fillMs;
    core.db.pragma('wal_checkpoint(TRUNCATE)');
    core.db.exec('ANALYZE');
  } finally {
    core.close();
  }
  const databaseMiB = statSync(file).size / 2 ** 20;
  const service = await startService(dataDir, join(o.dir, 'big-service.log'));
  const listeningAt = performance.now();
  try {
    await sleep(1000);
    const started = memoryOf(service.pid);
    const points = samples.slice(0, 500);
    const rnd = prng(3);
    const nearPath = (radius: number, total: number): string => {
      const [lat, lng] = points[Math.floor(rnd() * points.length)]!;
      return `/1/pois/get_near.json?oauth_token=${token}&lat=${lat}&lng=${lng}&radius=${radius}&total=${total}`;
    };
    // Whatever the server warms at start-up (geocoder, map clusters) may hold its event loop.
    o.log(`memory: serving child RSS ${started.rssMiB.toFixed(0)} MiB 1 s after listening; waiting until it answers quickly...`);
    const deadline = performance.now() + 300_000;
    for (;;) {
      const t0 = performance.now();
      const ok = await send(service.port, { method: 'GET', path: nearPath(1000, 100) }).then(
        (a) => a.status === 200,
        () => false,
      );
      if ((ok && performance.now() - t0 < 100) || performance.now() > deadline) break;
      await sleep(200);
    }
    const responsiveAfterSeconds = (performance.now() - listeningAt) / 1000;
    const warmed = memoryOf(service.pid);
    const near = (radius: number, total: number, seed: number, seconds = o.seconds): Promise<LoadResult> =>
      findWrk()
        ? runWrk({ port: service.port, script: luaNear(token, points, radius, total, seed), connections: o.connections, seconds, dir: o.dir })
        : nodeLoad({ port: service.port, connections: o.connections, seconds, next: () => ({ method: 'GET', path: nearPath(radius, total) }) });
    o.log(`memory: responsive after ${responsiveAfterSeconds.toFixed(1)} s, RSS ${warmed.rssMiB.toFixed(0)} MiB; ` +
      `get_near over HTTP for 2 x ${o.seconds} s after ${o.warmup} s warm-up...`);
    await near(1000, 100, 9, o.warmup);
    const near1km = await near(1000, 100, 1);
    const near5km = await near(5000, 1000, 2);
    const viewport = await viewportLoad(service.port, service.logFile, clientId, points, o);
    const loaded = memoryOf(service.pid);
    return { pois: count, fillSeconds: fillMs / 1000, databaseMiB, started, responsiveAfterSeconds, warmed, loaded, near1km, near5km, viewport };
  } finally {
    await service.stop();
  }
}

/** The map viewport through the admin UI's API, if the log shows its console token; else null. */
async function viewportLoad(
  port: number,
  logFile: string,
  clientId: string,
  points: ReadonlyArray<readonly [number, number]>,
  o: MemoryBenchOptions,
): Promise<LoadResult | null> {
  const consoleToken = /#token=([A-Za-z0-9_-]+)/.exec(readFileSync(logFile, 'utf8'))?.[1];
  if (!consoleToken) return null;
  const rnd = prng(5);
  const request = (): Req => {
    const [lat, lng] = points[Math.floor(rnd() * points.length)]!;
    return {
      method: 'POST',
      path: '/console/api/pois.map',
      headers: { authorization: `Bearer ${consoleToken}` },
      json: { clientId, south: lat - 0.04, north: lat + 0.04, west: lng - 0.08, east: lng + 0.08, zoom: 13 },
    };
  };
  const probe = await send(port, request());
  if (probe.status !== 200) {
    o.log(`memory: map viewport route answered ${probe.status}; skipped`);
    return null;
  }
  o.log(`memory: map viewport over HTTP (POST /console/api/pois.map) for ${o.seconds} s...`);
  return findWrk()
    ? runWrk({ port, script: luaViewport(consoleToken, clientId, points, 4), connections: o.connections, seconds: o.seconds, dir: o.dir })
    : nodeLoad({ port, connections: o.connections, seconds: o.seconds, next: request });
}
