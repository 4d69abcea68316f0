import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { seedPois } from './http-bench.js';
import { nodeLoad } from './http.js';
import { addClient, ROOT, startService } from './server-child.js';
import { findWrk, luaAdd, luaGet, runWrk, type LoadResult } from './wrk.js';

/**
 * `tsx test/bench/profile.ts [--kind get|add] [--seconds N] [--keep DIR]`: serves with the real
 * CLI under `node --cpu-prof --import tsx`, loads it with get.json or add.json at 32
 * connections, stops it cleanly (the profile is written on exit) and prints the functions with
 * the most self time, and the same grouped by package. Not part of `npm run bench`.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  name: string;
  ms: number;
  percent: number;
}

const where = (url: string): string => {
  if (!url) return '';
  const path = url.startsWith('file://') ? relative(ROOT, new URL(url).pathname) : url;
  return path.replace(/^node_modules\//, '');
};

/** Which package or zone a frame belongs to. */
function group(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native / builtin)';
  if (url.startsWith('node:')) return 'node: internals';
  const path = where(url);
  const pkg = /^(@[^/]+\/[^/]+|[^/]+)\//.exec(path);
  if (url.includes('/node_modules/') && pkg) return pkg[1]!;
  return path.split('/').slice(0, 2).join('/');
}

/** Self time by function and by group, from a .cpuprofile (sample time deltas, in µs). */
export function summarizeProfile(profile: CpuProfile, top = 25): { total: number; functions: SelfTime[]; groups: SelfTime[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const fn = new Map<string, number>();
  const grp = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    if (!node || node.callFrame.functionName === '(idle)') return;
    total += dt;
    const f = node.callFrame;
    // Lines of TypeScript files are those of tsx's output, not of the source: left out.
    const line = f.url && !f.url.endsWith('.ts') ? `:${f.lineNumber + 1}` : '';
    const name = `${f.functionName || '(anonymous)'} ${where(f.url)}${line}`;
    fn.set(name, (fn.get(name) ?? 0) + dt);
    const g = group(f);
    grp.set(g, (grp.get(g) ?? 0) + dt);
  });
  const rank = (m: Map<string, number>): SelfTime[] =>
    [...m].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, ms]) => ({ name, ms, percent: (100 * ms) / total }));
  return { total, functions: rank(fn), groups: rank(grp) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { kind: { type: 'string', default: 'get' }, seconds: { type: 'string', default: '10' }, keep: { type: 'string' } },
  });
  const kind = values.kind === 'add' ? 'add' : 'get';
  const seconds = Math.min(120, Math.max(1, Number(values.seconds)));
  const dir = mkdtempSync(join(tmpdir(), 'poi-profile-'));
  const profDir = values.keep ?? join(dir, 'prof');
  mkdirSync(profDir, { recursive: true });
  try {
    const dataDir = join(dir, 'data');
    const client = await addClient(dataDir);
    const token = client.admin_token;
    // Seed without the profiler, so that the profile holds only the measured load.
    const seeder = await startService(dataDir, join(dir, 'seed.log'));
    let ids: number[];
    try {
      ids = await seedPois(seeder.port, token, 1000);
    } finally {
      await seeder.stop();
    }
    const service = await startService(dataDir, join(dir, 'service.log'), ['--cpu-prof', `--cpu-prof-dir=${profDir}`]);
    let result: LoadResult;
    try {
      result = findWrk()
        ? await runWrk({ port: service.port, script: kind === 'get' ? luaGet(token, ids, 1) : luaAdd(token, 1), connections: 32, seconds, dir })
        : await nodeLoad({
            port: service.port,
            connections: 32,
            seconds,
            next: (i) =>
              kind === 'get'
                ? { method: 'GET', path: `/1/pois/get.json?oauth_token=${token}&poi=${ids[i % ids.length]}` }
                : { method: 'GET', path: `/1/pois/add.json?oauth_token=${token}&lat=40&lng=-3&categories=1&name=P${i}` },
          });
    } finally {
      await service.stop();
    }
    console.log(`${kind}.json under --cpu-prof: ${result.tool} ${result.rps.toFixed(0)} req/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`);
    const file = readdirSync(profDir).find((f) => f.includes(`.${service.pid}.0.`) && f.endsWith('.cpuprofile'));
    if (!file) throw new Error(`no profile of pid ${service.pid} in ${profDir}: ${readdirSync(profDir).join(', ')}`);
    const summary = summarizeProfile(JSON.parse(readFileSync(join(profDir, file), 'utf8')) as CpuProfile);
    console.log(`profile ${join(profDir, file)}: ${(summary.total / 1000).toFixed(1)} s of non-idle samples`);
    console.log('\ntop self time by function:');
    for (const f of summary.functions) console.log(`  ${f.percent.toFixed(1).padStart(5)} %  ${f.name}`);
    console.log('\nself time by package / zone:');
    for (const g of summary.groups) console.log(`  ${g.percent.toFixed(1).padStart(5)} %  ${g.name}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// Run as a command, not when another script imports summarizeProfile.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
