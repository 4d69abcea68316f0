import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'node:http';
import { median, nodeLoad, send, sendJson, type Req } from './http.js';
import { benchLogin, type LoginBenchResult } from './login.js';
import { addClient, memoryOf, startBare, startReference, startService, type Child, type Memory, type NewClient } from './server-child.js';
import { prng } from './stats.js';
import { findWrk, luaAdd, luaFixed, luaGet, runWrk, type LoadResult } from './wrk.js';
import { benchGetPatterns, type PatternFigure, type Pattern } from './get-patterns.js';

/**
 * What one load asks: the bare server, the service's get/add, get of a second service serving
 * the same file with `--no-reply-cache` (the same work as the reference), get/add of a third with
 * `--no-inspector` (the request inspector off; the service keeps requests by default), or the
 * reference's two.
 */
export type Kind = 'bare' | 'get' | 'getUncached' | 'add' | 'getOff' | 'addOff' | 'refGet' | 'refAdd';
const GETS: ReadonlySet<Kind> = new Set(['get', 'getUncached', 'getOff', 'refGet']);

/** The median of several runs of one kind of request. */
export interface Measured {
  tool: 'wrk' | 'node';
  connections: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  socketErrors: number;
  runs: LoadResult[];
}

export interface HttpBenchResult {
  tool: string;
  replyBytes: number;
  bare: Measured;
  get: Measured;
  add: Measured;
  /** get.json of the service with its reply cache off. */
  getUncached: Measured;
  /** get.json and add.json of the service with its request inspector off (`--no-inspector`). */
  inspectorOff: { get: Measured; add: Measured };
  /** The minimal reference (reference-server.ts) doing the same get and add over the same file. */
  reference: { get: Measured; add: Measured };
  /** Of the service's throughput: against bare, and against the reference on the same work (get without the cache). */
  ratio: { add: number; get: number; addToReference: number; getToReference: number; getInspectorOnToOff: number; addInspectorOnToOff: number };
  /** Of the serving child after the get/add load, on its small database, and of the bare child. */
  serviceMemory: Memory;
  bareMemory: Memory;
  login: LoginBenchResult;
  /** get.json as clients ask it, caches on and off (get-patterns.ts); wrk only. */
  getPatterns?: Record<Pattern, PatternFigure>;
}

export interface HttpBenchOptions {
  /** Scratch directory (data, logs, scripts); the caller removes it. */
  dir: string;
  seconds: number;
  warmup: number;
  repeats: number;
  connections: number;
  loginSeconds: number;
  log: (line: string) => void;
}

/** Adds `count` POIs over HTTP, 8 at a time; returns their ids. */
export async function seedPois(port: number, token: string, count: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  const rnd = prng(7);
  const ids: number[] = [];
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const lat = (36 + rnd() * 24).toFixed(6);
      const lng = (-10 + rnd() * 40).toFixed(6);
      const reply = await sendJson<{ id: number }>(
        port,
        { method: 'GET', path: `/1/pois/add.json?oauth_token=${token}&lat=${lat}&lng=${lng}&categories=${1 + (i % 30)}&name=Seed+${i}` },
        agent,
      );
      ids.push(reply.id);
    }
  };
  await Promise.all(Array.from({ length: 8 }, loop));
  agent.destroy();
  return ids.sort((a, b) => a - b);
}

function nodeRequest(kind: Kind, token: string, ids: readonly number[], rnd: () => number): (i: number) => Req {
  if (kind === 'bare') return () => ({ method: 'GET', path: '/' });
  if (GETS.has(kind)) return () => ({ method: 'GET', path: `/1/pois/get.json?oauth_token=${token}&poi=${ids[Math.floor(rnd() * ids.length)]}` });
  return (i) => ({
    method: 'GET',
    path: `/1/pois/add.json?oauth_token=${token}&lat=${(36 + rnd() * 24).toFixed(6)}&lng=${(-10 + rnd() * 40).toFixed(6)}&categories=${1 + (i % 30)}&name=Bench+${i}`,
  });
}

export function summarize(runs: LoadResult[]): Measured {
  const first = runs[0]!;
  return {
    tool: first.tool,
    connections: first.connections,
    seconds: median(runs.map((r) => r.seconds)),
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
    socketErrors: runs.reduce((a, r) => a + r.socketErrors, 0),
    runs,
  };
}

const line = (kind: string, r: LoadResult): string =>
  `  ${kind.padEnd(11)} ${r.tool} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms` +
  (r.non2xx || r.socketErrors ? `  non-2xx ${r.non2xx} socket errors ${r.socketErrors}` : '');

/**
 * add.json and get.json against the real CLI server (one child process), beside a bare node:http
 * server (another child) answering a body of the same size and the minimal reference (a third)
 * doing the same work over the same database file, with the same generator, the same
 * connections and durations, interleaved run by run so that all see the same machine noise.
 */
export async function benchHttp(o: HttpBenchOptions): Promise<HttpBenchResult> {
  const wrk = findWrk();
  o.log(`HTTP: ${wrk ?? 'wrk not found: Node keep-alive generator (figures labelled "node")'}; ${o.connections} connections, ` +
    `${o.repeats} x ${o.seconds} s after ${o.warmup} s warm-up`);
  const dataDir = join(o.dir, 'data');
  mkdirSync(dataDir, { recursive: true });
  const client: NewClient = await addClient(dataDir);
  const children: Child[] = [];
  try {
    const service = await startService(dataDir, join(o.dir, 'service.log'));
    children.push(service);
    const ids = await seedPois(service.port, client.admin_token, 1000);
    const sample = await send(service.port, { method: 'GET', path: `/1/pois/get.json?oauth_token=${client.admin_token}&poi=${ids[0]}` });
    const replyBytes = Buffer.byteLength(sample.body);
    const bare = await startBare(join(o.dir, 'bare.log'), replyBytes);
    children.push(bare);
    const uncached = await startService(dataDir, join(o.dir, 'service-uncached.log'), undefined, ['--no-reply-cache']);
    children.push(uncached);
    const unInspected = await startService(dataDir, join(o.dir, 'service-no-inspector.log'), undefined, ['--no-inspector']);
    children.push(unInspected);
    const reference = await startReference(join(dataDir, 'poi.sqlite'), join(o.dir, 'reference.log'));
    children.push(reference);
    // The same work: the reference must answer the very bytes the service answers.
    const fromReference = await send(reference.port, { method: 'GET', path: `/1/pois/get.json?oauth_token=${client.admin_token}&poi=${ids[0]}` });
    if (fromReference.body !== sample.body) throw new Error(`the reference answers get.json otherwise than the service:\n${fromReference.body}\n${sample.body}`);
    const rnd = prng(11);
    let seed = 1;
    const measure = (kind: Kind, seconds: number): Promise<LoadResult> => {
      const port = { bare: bare.port, get: service.port, getUncached: uncached.port, add: service.port, getOff: unInspected.port, addOff: unInspected.port, refGet: reference.port, refAdd: reference.port }[kind];
      if (!wrk) return nodeLoad({ port, connections: o.connections, seconds, next: nodeRequest(kind, client.admin_token, ids, rnd) });
      const script =
        kind === 'bare' ? luaFixed('/') : GETS.has(kind) ? luaGet(client.admin_token, ids, seed++) : luaAdd(client.admin_token, seed++);
      return runWrk({ port, script, connections: o.connections, seconds, dir: o.dir });
    };
    // get last, so that the memory read after the loop is not a transient peak of the add load.
    // Inspector off and on one after the other: their ratio sees the same noise.
    const kinds: Kind[] = ['bare', 'refAdd', 'addOff', 'add', 'refGet', 'getUncached', 'getOff', 'get'];
    for (const kind of kinds) await measure(kind, o.warmup);
    const runs: Record<Kind, LoadResult[]> = { bare: [], get: [], getUncached: [], add: [], getOff: [], addOff: [], refGet: [], refAdd: [] };
    // Off before on, then on before off: what a load leaves behind (a checkpoint after writes)
    // falls on each side alike. Even rounds keep get last, for the memory read after them.
    const swap: Partial<Record<Kind, Kind>> = { addOff: 'add', add: 'addOff', getOff: 'get', get: 'getOff' };
    for (let r = 0; r < o.repeats; r++) {
      for (const kind of r % 2 === 1 ? kinds.map((k) => swap[k] ?? k) : kinds) {
        const result = await measure(kind, o.seconds);
        runs[kind].push(result);
        o.log(line(kind, result));
      }
    }
    const serviceMemory = memoryOf(service.pid);
    const bareMemory = memoryOf(bare.pid);
    o.log(`login: ${o.loginSeconds} s at 8 connections...`);
    const login = await benchLogin(service.port, client, { seconds: o.loginSeconds, connections: 8, dir: o.dir });
    const getPatterns = wrk
      ? await benchGetPatterns({
          ...o, dataDir, clientId: client.client_id, token: client.admin_token, ids,
          ports: { reference: reference.port, writer: unInspected.port },
        })
      : undefined;
    const measured = { bare: summarize(runs.bare), get: summarize(runs.get), getUncached: summarize(runs.getUncached), add: summarize(runs.add) };
    const ref = { get: summarize(runs.refGet), add: summarize(runs.refAdd) };
    const inspectorOff = { get: summarize(runs.getOff), add: summarize(runs.addOff) };
    return {
      tool: wrk ?? 'node keep-alive generator',
      replyBytes,
      ...measured,
      reference: ref,
      inspectorOff,
      ratio: {
        getInspectorOnToOff: measured.get.rps / inspectorOff.get.rps,
        addInspectorOnToOff: measured.add.rps / inspectorOff.add.rps,
        add: measured.add.rps / measured.bare.rps,
        get: measured.get.rps / measured.bare.rps,
        addToReference: measured.add.rps / ref.add.rps,
        getToReference: measured.getUncached.rps / ref.get.rps,
      },
      serviceMemory,
      bareMemory,
      login,
      ...(getPatterns && { getPatterns }),
    };
  } finally {
    for (const child of children) await child.stop();
  }
}
