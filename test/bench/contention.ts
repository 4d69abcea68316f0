import { startApiChild } from '../support/api-child-process.js';
import { median } from './http.js';
import { luaFixed, runWrk, type LoadResult } from './wrk.js';

export interface ContentionResult {
  densePois: number;
  /** get.json at 4 connections, nothing else running. */
  alone: LoadResult;
  /** get.json at 4 connections while 20 connections send world-radius, total=1000 near queries. */
  underNear: LoadResult;
  /** Those near queries, in the same runs. */
  near: LoadResult;
}

/** The medians of several runs' figures. */
const medians = (runs: LoadResult[]): LoadResult => ({
  ...runs[0]!,
  requests: median(runs.map((r) => r.requests)),
  rps: median(runs.map((r) => r.rps)),
  p50: median(runs.map((r) => r.p50)),
  p99: median(runs.map((r) => r.p99)),
  non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
  socketErrors: runs.reduce((n, r) => n + r.socketErrors, 0),
});

/**
 * A plain get.json's latency while one token holder sends heavy near queries (a world-sized
 * radius, the 1,000 nearest, over `dense` POIs packed into a few hundred metres), against the
 * same get.json alone, in the same run: medians of `repeats` runs of `seconds` each. Needs wrk.
 */
export async function benchContention(o: { dense: number; seconds: number; repeats: number; dir: string; log: (line: string) => void }): Promise<ContentionResult> {
  o.log(`contention: a listener over ${o.dense.toLocaleString('en')} dense POIs...`);
  const child = await startApiChild({}, { dense: o.dense });
  try {
    const get = luaFixed(`/1/pois/get.json?oauth_token=${child.admin}&poi=${child.poi}`);
    const near = luaFixed(`/1/pois/get_near.json?oauth_token=${child.admin}&lat=48.85&lng=2.35&radius=20037509&total=1000`);
    await runWrk({ port: child.port, script: get, connections: 4, seconds: 2, dir: o.dir });
    const alone: LoadResult[] = [];
    const under: LoadResult[] = [];
    const heavy: LoadResult[] = [];
    for (let i = 0; i < o.repeats; i++) {
      // A pause after the heavy load, so that "alone" is not measured in its garbage collection.
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, 2000));
      alone.push(await runWrk({ port: child.port, script: get, connections: 4, seconds: o.seconds, dir: o.dir }));
      const [g, n] = await Promise.all([
        runWrk({ port: child.port, script: get, connections: 4, seconds: o.seconds, dir: o.dir }),
        runWrk({ port: child.port, script: near, connections: 20, seconds: o.seconds, dir: o.dir }),
      ]);
      under.push(g);
      heavy.push(n);
      o.log(`  run ${i + 1}: get.json p99 alone ${alone[i]!.p99.toFixed(1)} ms, under near ${g.p99.toFixed(1)} ms; near ${n.rps.toFixed(0)} req/s p99 ${n.p99.toFixed(0)} ms`);
    }
    return { densePois: o.dense, alone: medians(alone), underNear: medians(under), near: medians(heavy) };
  } finally {
    child.process.kill('SIGTERM');
  }
}
