import { Agent } from 'node:http';
import { median, send } from './http.js';
import { openCore } from '../support/core.js';
import { fillPois } from './fill.js';
import { luaGet, luaGetInTurn, luaGetUnique, runWrk, type LoadResult } from './wrk.js';
import { join } from 'node:path';
import { startService, type Child } from './server-child.js';

/**
 * get.json as clients ask it, with the reply caches on and off (main/http/reply-memo.ts,
 * main/core/pois/reply-cache.ts): (a) a fixed set of 1,000 URLs over and over, (b) a unique URL
 * per request (the same 1,000 POIs, an ignored parameter that never repeats), (c) every one of
 * 100,000 ids in turn, (d) (a) with 10 add.json a second beside it and (e) with 1,000, sent by a
 * loop of this process to a fourth serving process on the same file, so that every served
 * process sees another process's commits. The caches must never make a pattern slower. The
 * services with and without them are started here, so that both have served the same loads.
 */
export type Pattern = 'fixed' | 'unique' | 'inTurn' | 'writes10' | 'writes1000';
const PATTERNS: readonly Pattern[] = ['fixed', 'unique', 'inTurn', 'writes10', 'writes1000'];
const LABEL: Record<Pattern, string> = {
  fixed: '(a) 1,000 URLs',
  unique: '(b) unique URLs',
  inTurn: '(c) 100,000 ids in turn',
  writes10: '(d) (a) + 10 writes/s',
  writes1000: '(e) (a) + 1,000 writes/s',
};
/** Writes a second beside the reads, by pattern. */
const WRITES: Partial<Record<Pattern, number>> = { writes10: 10, writes1000: 1_000 };
/** The ids asked in turn (c). */
const IN_TURN = 100_000;

type Server = 'on' | 'off' | 'reference';
const SERVERS: readonly Server[] = ['on', 'off', 'reference'];

export interface PatternFigure {
  /** Medians of the runs. */
  on: { rps: number; p99: number };
  off: { rps: number; p99: number };
  reference: { rps: number; p99: number };
  /** Caches on against off, and against the reference, by req/s. */
  onToOff: number;
  onToReference: number;
  /** add.json answered a second beside the reads (d, e), over all their runs. */
  writesPerSecond?: number;
  runs: Record<Server, LoadResult[]>;
}

export interface GetPatternsOptions {
  dir: string;
  /** The data folder the services serve (POIs are added to its database for (c)). */
  dataDir: string;
  clientId: string;
  token: string;
  /** The 1,000 POIs of (a), (b), (d) and (e). */
  ids: readonly number[];
  /** The reference over the same file, and a service on it where the writes beside go. */
  ports: Record<'reference' | 'writer', number>;
  connections: number;
  seconds: number;
  warmup: number;
  repeats: number;
  log: (line: string) => void;
}

/**
 * add.json at `perSecond` to `port` over an agent of its own, in ticks of 10 ms, until stopped;
 * resolves to the answers counted (an answer that is not 200 stops it: the figure would lie).
 */
function writeBeside(port: number, token: string, perSecond: number): { stop: () => Promise<number> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const tick = 10;
  let due = 0;
  let sent = 0;
  let answered = 0;
  let failure: Error | undefined;
  const pending = new Set<Promise<void>>();
  const started = performance.now();
  const timer = setInterval(() => {
    due = Math.floor(((performance.now() - started) / 1000) * perSecond);
    while (sent < due && pending.size < 64 && !failure) {
      const n = sent++;
      const request = send(port, { method: 'GET', path: `/1/pois/add.json?oauth_token=${token}&lat=${40 + (n % 997) / 1e4}&lng=-3.7&categories=${1 + (n % 30)}&name=Beside+${n}` }, agent)
        .then((answer) => {
          if (answer.status === 200) answered += 1;
          else failure ??= new Error(`add.json beside the reads answered ${answer.status}: ${answer.body.slice(0, 200)}`);
        })
        .catch((error: unknown) => void (failure ??= error instanceof Error ? error : new Error(String(error))))
        .finally(() => pending.delete(request));
      pending.add(request);
    }
  }, tick);
  return {
    stop: async () => {
      clearInterval(timer);
      await Promise.all(pending);
      agent.destroy();
      if (failure) throw failure;
      return answered;
    },
  };
}

export async function benchGetPatterns(o: GetPatternsOptions): Promise<Record<Pattern, PatternFigure>> {
  // (c) needs 100,000 POIs of the client: the loads before may have added some; the rest through the triggers.
  const core = openCore({ file: join(o.dataDir, 'poi.sqlite') });
  let inTurn: number[];
  try {
    const ofClient = core.db.prepare<[string, number], { id: number }>('SELECT id FROM pois WHERE client_id = ? ORDER BY id LIMIT ?');
    const have = ofClient.all(o.clientId, IN_TURN).length;
    if (have < IN_TURN) fillPois(core, IN_TURN - have, 43, undefined, o.clientId);
    inTurn = ofClient.all(o.clientId, IN_TURN).map((r) => r.id);
  } finally {
    core.close();
  }
  const children: Child[] = [];
  try {
    const on = await startService(o.dataDir, join(o.dir, 'patterns-on.log'));
    children.push(on);
    const off = await startService(o.dataDir, join(o.dir, 'patterns-off.log'), undefined, ['--no-reply-cache']);
    children.push(off);
    return await measurePatterns(o, inTurn, { on: on.port, off: off.port, reference: o.ports.reference, writer: o.ports.writer });
  } finally {
    for (const child of children) await child.stop();
  }
}

async function measurePatterns(o: GetPatternsOptions, inTurn: readonly number[], ports: Record<Server | 'writer', number>): Promise<Record<Pattern, PatternFigure>> {
  let seed = 1000;
  const script = (pattern: Pattern): string =>
    pattern === 'unique' ? luaGetUnique(o.token, o.ids, seed++) : pattern === 'inTurn' ? luaGetInTurn(o.token, inTurn, seed++) : luaGet(o.token, o.ids, seed++);
  const measure = async (pattern: Pattern, server: Server, seconds: number): Promise<{ result: LoadResult; writes: number }> => {
    const rate = WRITES[pattern];
    const writer = rate === undefined ? undefined : writeBeside(ports.writer, o.token, rate);
    try {
      const result = await runWrk({ port: ports[server], script: script(pattern), connections: o.connections, seconds, dir: o.dir });
      return { result, writes: (await writer?.stop()) ?? 0 };
    } catch (error) {
      await writer?.stop().catch(() => undefined);
      throw error;
    }
  };
  // The same answer from each, or the figures compare different work.
  const probe = `/1/pois/get.json?oauth_token=${o.token}&poi=${inTurn[inTurn.length - 1]}`;
  const bodies = await Promise.all(SERVERS.map((server) => send(ports[server], { method: 'GET', path: probe })));
  if (new Set(bodies.map((b) => b.body)).size !== 1) throw new Error(`the servers answer ${probe} otherwise:\n${bodies.map((b) => b.body).join('\n')}`);

  const figures = {} as Record<Pattern, PatternFigure>;
  for (const pattern of PATTERNS) {
    for (const server of SERVERS) await measure(pattern, server, o.warmup);
    const runs: Record<Server, LoadResult[]> = { on: [], off: [], reference: [] };
    let writes = 0;
    let writeSeconds = 0;
    for (let r = 0; r < o.repeats; r++) {
      // Which goes first alternates, so that what one leaves behind (a checkpoint) falls on each alike.
      for (const server of r % 2 === 0 ? SERVERS : [...SERVERS].reverse()) {
        const { result, writes: answered } = await measure(pattern, server, o.seconds);
        runs[server].push(result);
        writes += answered;
        writeSeconds += result.seconds;
        o.log(`  ${LABEL[pattern].padEnd(26)} ${server.padEnd(9)} ${result.rps.toFixed(0).padStart(6)} req/s  p99 ${result.p99.toFixed(2)} ms` +
          (WRITES[pattern] === undefined ? '' : `  writes ${(answered / result.seconds).toFixed(0)}/s`) +
          (result.non2xx || result.socketErrors ? `  non-2xx ${result.non2xx} socket errors ${result.socketErrors}` : ''));
      }
    }
    const of = (server: Server) => ({ rps: median(runs[server].map((x) => x.rps)), p99: median(runs[server].map((x) => x.p99)) });
    const [on, off, reference] = [of('on'), of('off'), of('reference')];
    figures[pattern] = {
      on,
      off,
      reference,
      onToOff: on.rps / off.rps,
      onToReference: on.rps / reference.rps,
      ...(WRITES[pattern] === undefined ? {} : { writesPerSecond: writes / writeSeconds }),
      runs,
    };
  }
  o.log('get.json by pattern, medians (caches on / off / reference):');
  for (const pattern of PATTERNS) {
    const f = figures[pattern];
    o.log(`  ${LABEL[pattern].padEnd(26)} on ${f.on.rps.toFixed(0)} req/s p99 ${f.on.p99.toFixed(2)} ms; off ${f.off.rps.toFixed(0)} p99 ${f.off.p99.toFixed(2)}; ` +
      `reference ${f.reference.rps.toFixed(0)} p99 ${f.reference.p99.toFixed(2)}; on/off ${f.onToOff.toFixed(2)}x, on/reference ${f.onToReference.toFixed(2)}x, off/reference ${(f.off.rps / f.reference.rps).toFixed(2)}x` +
      (f.writesPerSecond === undefined ? '' : `; writes ${f.writesPerSecond.toFixed(0)}/s`));
  }
  return figures;
}
