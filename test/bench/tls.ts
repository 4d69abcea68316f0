import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './http.js';
import { seedPois } from './http-bench.js';
import { addClient, startService } from './server-child.js';
import type { Row } from './table.js';
import { fmt } from './stats.js';
import { findWrk, luaAdd, luaGet, runWrk, type LoadResult } from './wrk.js';

/**
 * HTTP against HTTPS on one `serve --https-port` process: the same get.json and add.json loads
 * sent to its plain port and to its TLS port, run by run in turn so that both see the same machine
 * noise. Kept-alive connections show what TLS costs per request once a phone is connected; one
 * connection per request ("Connection: close") shows the handshake, which a phone pays when it
 * wakes or changes network.
 */
type Load = 'get' | 'add' | 'getNew';
const LOADS: readonly Load[] = ['get', 'add', 'getNew'];
const SCHEMES = ['http', 'https'] as const;
type Scheme = (typeof SCHEMES)[number];

export interface TlsBenchResult {
  connections: number;
  /** Median requests per second and latencies, per load and scheme. */
  figures: Record<Load, Record<Scheme, { rps: number; p50: number; p99: number; errors: number }>>;
}

const LABELS: Record<Load, string> = {
  get: 'get.json, kept-alive connections',
  add: 'add.json, kept-alive connections',
  getNew: 'get.json, a new connection per request',
};

/** One request per connection: wrk reconnects after each answer that closes its connection. */
const closing = (script: string): string => `wrk.headers["Connection"] = "close"\n${script}`;

export async function benchTls(o: { dir: string; seconds: number; warmup: number; repeats: number; connections: number; log: (line: string) => void }): Promise<TlsBenchResult | undefined> {
  if (!findWrk()) {
    o.log('tls: skipped, it needs wrk (apt-get install wrk), which speaks TLS');
    return undefined;
  }
  const dataDir = join(o.dir, 'tls-data');
  mkdirSync(dataDir, { recursive: true });
  const client = await addClient(dataDir);
  const logFile = join(o.dir, 'tls-service.log');
  const service = await startService(dataDir, logFile, undefined, ['--https-port', '0']);
  try {
    const httpsPort = Number(/API listening on https:\/\/[^\s]+:(\d+)\/1\//.exec(readFileSync(logFile, 'utf8'))?.[1]);
    if (!httpsPort) throw new Error(`serve --https-port 0 printed no HTTPS address:\n${readFileSync(logFile, 'utf8').slice(-2000)}`);
    const ports: Record<Scheme, number> = { http: service.port, https: httpsPort };
    const ids = await seedPois(service.port, client.admin_token, 1000);
    let seed = 1;
    const measure = (load: Load, scheme: Scheme, seconds: number): Promise<LoadResult> => {
      const script = load === 'add' ? luaAdd(client.admin_token, seed++) : luaGet(client.admin_token, ids, seed++);
      // Fewer connections when each is new: 32 handshakes at once measure the backlog, not TLS.
      const connections = load === 'getNew' ? Math.min(8, o.connections) : o.connections;
      return runWrk({ port: ports[scheme], scheme, script: load === 'getNew' ? closing(script) : script, connections, seconds, dir: o.dir });
    };
    o.log(`tls: HTTP against HTTPS on one serve process, ${o.repeats} x ${o.seconds} s after ${o.warmup} s warm-up`);
    for (const load of LOADS) for (const scheme of SCHEMES) await measure(load, scheme, o.warmup);
    const runs = Object.fromEntries(LOADS.map((l) => [l, { http: [] as LoadResult[], https: [] as LoadResult[] }])) as Record<Load, Record<Scheme, LoadResult[]>>;
    for (let r = 0; r < o.repeats; r++) {
      for (const load of LOADS) {
        for (const scheme of SCHEMES) {
          const result = await measure(load, scheme, o.seconds);
          runs[load][scheme].push(result);
          o.log(`  ${load.padEnd(7)} ${scheme.padEnd(5)} ${result.rps.toFixed(0).padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms`);
        }
      }
    }
    const summarize = (list: LoadResult[]): { rps: number; p50: number; p99: number; errors: number } => ({
      rps: median(list.map((r) => r.rps)),
      p50: median(list.map((r) => r.p50)),
      p99: median(list.map((r) => r.p99)),
      errors: list.reduce((a, r) => a + r.non2xx + r.socketErrors, 0),
    });
    const figures = Object.fromEntries(LOADS.map((l) => [l, { http: summarize(runs[l].http), https: summarize(runs[l].https) }])) as TlsBenchResult['figures'];
    return { connections: o.connections, figures };
  } finally {
    await service.stop();
  }
}

/** One row per load: HTTPS's figures with HTTP's, in the same run, as the baseline. */
export function tlsRows(t: TlsBenchResult | undefined): Row[] {
  if (!t) return [];
  return LOADS.map((load) => {
    const { http, https } = t.figures[load];
    const errors = http.errors + https.errors ? ` [${http.errors + https.errors} errors]` : '';
    return [
      `HTTPS ${LABELS[load]}${errors}`,
      'wrk',
      `${Math.round(https.rps).toLocaleString('en')} req/s`,
      `${fmt(https.p50)} ms`,
      `${fmt(https.p99)} ms`,
      `HTTP ${Math.round(http.rps).toLocaleString('en')} req/s, p99 ${fmt(http.p99)} ms`,
      `${(https.rps / http.rps).toFixed(2)}x HTTP`,
      'measured, no goal',
    ];
  });
}
