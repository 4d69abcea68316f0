import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { seedPois } from './http-bench.js';
import { nodeLoad, type Answer, type Req } from './http.js';
import { addClient, memoryOf, startService } from './server-child.js';
import { prng } from './stats.js';

/**
 * `npm run load [-- --seconds N] [-- --connections N]`: a mixed load against the real CLI server
 * (a child process on a temporary data folder): 60 % reads (get, get_near, get_where), 30 % add,
 * 10 % update with the administrator token, at 64 connections for 60 s. Every request must be
 * answered 200 with the JSON it asked for, and the server must log no internal error: otherwise
 * the exit code is 1. Not part of CI.
 */
const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '60' }, connections: { type: 'string', default: '64' } },
});
const seconds = Number(values.seconds);
const connections = Number(values.connections);
if (!(seconds > 0 && seconds <= 3600)) throw new Error('--seconds must be in (0, 3600]');
if (!(Number.isInteger(connections) && connections > 0 && connections <= 1024)) throw new Error('--connections must be 1-1024');

const dir = mkdtempSync(join(tmpdir(), 'poi-load-'));
try {
  const dataDir = join(dir, 'data');
  const logFile = join(dir, 'service.log');
  const client = await addClient(dataDir, 'load');
  const service = await startService(dataDir, logFile);
  try {
    const token = client.admin_token;
    const ids = await seedPois(service.port, token, 500);
    const rnd = prng(2024);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
    const lat = (): string => (36 + rnd() * 24).toFixed(6);
    const lng = (): string => (-10 + rnd() * 40).toFixed(6);
    const q = (params: Record<string, string | number>): string =>
      new URLSearchParams({ oauth_token: token, ...Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])) }).toString();
    const next = (i: number): Req => {
      const r = rnd();
      if (r < 0.2) return { kind: 'get', method: 'GET', path: `/1/pois/get.json?${q({ poi: pick(ids) })}` };
      if (r < 0.4) {
        return { kind: 'get_near', method: 'GET', path: `/1/pois/get_near.json?${q({ lat: lat(), lng: lng(), radius: 200_000, total: 50 })}` };
      }
      if (r < 0.6) {
        const filter: Record<string, string | number> = rnd() < 0.5 ? { categories: 1 + (i % 30) } : { q: `Seed ${i % 50}` };
        return { kind: 'get_where', method: 'GET', path: `/1/pois/get_where.json?${q({ ...filter, total: 50 })}` };
      }
      if (r < 0.9) {
        // Half by query string, half as a url-encoded POST body.
        const fields = { lat: lat(), lng: lng(), categories: `${1 + (i % 30)},${1 + ((i + 7) % 30)}`, name: `Load ${i}`, desc: `Added by the load test, request ${i}` };
        return rnd() < 0.5
          ? { kind: 'add', method: 'GET', path: `/1/pois/add.json?${q(fields)}` }
          : { kind: 'add', method: 'POST', path: '/1/pois/add.json', form: { oauth_token: token, ...fields } };
      }
      const poi = pick(ids);
      const change: Record<string, string | number> =
        rnd() < 0.5 ? { name: `Updated ${i}`, desc: '' } : { lat: lat(), lng: lng(), categories: 1 + (i % 30) };
      return { kind: 'update', method: 'GET', path: `/1/pois/update.json?${q({ poi, ...change })}` };
    };
    const check = (req: Req, answer: Answer): boolean => {
      if (answer.status !== 200) return false;
      try {
        const body = JSON.parse(answer.body) as unknown;
        if (req.kind === 'get_near' || req.kind === 'get_where') return Array.isArray(body);
        return typeof body === 'object' && body !== null && typeof (body as { id?: unknown }).id === 'number';
      } catch {
        return false;
      }
    };
    console.log(`load: ${seconds} s at ${connections} connections against the CLI server (pid ${service.pid}, port ${service.port})...`);
    const result = await nodeLoad({ port: service.port, connections, seconds, next, check, maxRequests: 5_000_000 });
    const memory = memoryOf(service.pid);
    const internal = readFileSync(logFile, 'utf8').split('\n').filter((l) => l.startsWith('error:'));
    const failed = result.failed + internal.length;
    console.log(`requests: ${result.requests.toLocaleString('en')} in ${result.seconds.toFixed(1)} s = ${result.rps.toFixed(0)} req/s (Node keep-alive generator)`);
    console.log(`latency: p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`);
    for (const [kind, n] of Object.entries(result.byKind).sort((a, b) => b[1] - a[1])) {
      const l = result.latencyByKind[kind];
      console.log(`  ${kind.padEnd(10)} ${String(n).padStart(8)}  (${((100 * n) / result.requests).toFixed(1)} %)  p50 ${l?.p50.toFixed(2)} ms  p99 ${l?.p99.toFixed(2)} ms`);
    }
    console.log(`status counts: ${Object.entries(result.statuses).map(([s, n]) => `${s}: ${n}`).join(', ')}`);
    console.log(`errors: ${result.socketErrors} socket, ${result.non2xx} non-2xx, ${result.failed} failed checks, ${internal.length} internal errors logged`);
    console.log(`serving child RSS ${memory.rssMiB.toFixed(0)} MiB (peak ${memory.peakRssMiB.toFixed(0)} MiB)`);
    for (const sample of [...result.samples, ...internal.slice(0, 5)]) console.log(`  failure: ${sample}`);
    const passed = failed === 0 && result.requests > 0;
    process.exitCode = passed ? 0 : 1;
    console.log(passed ? 'load: OK, no failed request' : `load: FAILED, ${failed} failed requests`);
  } finally {
    await service.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
