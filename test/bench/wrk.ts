import { spawn, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { screenBox } from './screen.js';

/** One load measurement: requests per second and latency percentiles, in milliseconds. */
export interface LoadResult {
  /** Which generator produced the figure. */
  tool: 'wrk' | 'node';
  connections: number;
  seconds: number;
  requests: number;
  rps: number;
  p50: number;
  p99: number;
  /** Answers with a status outside 2xx/3xx. */
  non2xx: number;
  /** Connect, read, write errors and timeouts. */
  socketErrors: number;
}

let wrkVersion: string | null | undefined;

/** wrk's version line when wrk is on the PATH (and BENCH_NO_WRK is not set), else null. */
export function findWrk(): string | null {
  if (wrkVersion !== undefined) return wrkVersion;
  if (process.env.BENCH_NO_WRK) return (wrkVersion = null);
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' });
  wrkVersion = probe.error ? null : ((probe.stdout + probe.stderr).split('\n')[0] ?? 'wrk').trim();
  return wrkVersion;
}

/** Appended to every script: prints the summary as one JSON line that runWrk reads. */
const DONE = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect, e.read, e.write, e.status, e.timeout))
end
`;

interface WrkSummary {
  requests: number;
  duration_us: number;
  p50_us: number;
  p99_us: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
}

export interface WrkRun {
  port: number;
  /** The Lua script, without `done` (added here). */
  script: string;
  connections: number;
  seconds: number;
  /** Seconds before wrk gives up on a request and counts it as a timeout (5 unless given). */
  timeout?: number;
  /** wrk threads; 1 leaves the other core of a 2-core machine to the server. */
  threads?: number;
  /** Where the script file is written. */
  dir: string;
  /** https: wrk speaks TLS (it checks no certificate, so the local authority's need not be trusted). */
  scheme?: 'http' | 'https';
}

/** Runs `wrk --latency` with a Lua script against SCHEME://127.0.0.1:PORT; at most `seconds` + 30 s. */
export async function runWrk(run: WrkRun): Promise<LoadResult> {
  const file = join(run.dir, `wrk-${process.pid}-${Date.now()}.lua`);
  writeFileSync(file, run.script + DONE);
  const args = [
    `-t${run.threads ?? 1}`,
    `-c${run.connections}`,
    `-d${run.seconds}s`,
    '--timeout',
    `${run.timeout ?? 5}s`,
    '--latency',
    '-s',
    file,
    `${run.scheme ?? 'http'}://127.0.0.1:${run.port}/`,
  ];
  const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const killer = setTimeout(() => child.kill('SIGKILL'), (run.seconds + 30) * 1000);
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  clearTimeout(killer);
  const line = /WRKJSON (\{.*\})/.exec(out);
  if (code !== 0 || !line?.[1]) throw new Error(`wrk exited with ${code}:\n${out}`);
  const s = JSON.parse(line[1]) as WrkSummary;
  const seconds = s.duration_us / 1e6;
  return {
    tool: 'wrk',
    connections: run.connections,
    seconds,
    requests: s.requests,
    rps: s.requests / seconds,
    p50: s.p50_us / 1000,
    p99: s.p99_us / 1000,
    non2xx: s.status,
    socketErrors: s.connect + s.read + s.write + s.timeout,
  };
}

const luaString = (text: string): string => JSON.stringify(text);

/** GET of one fixed path. */
export function luaFixed(path: string): string {
  return `wrk.method = "GET"\nwrk.path = ${luaString(path)}\n`;
}

/** add.json: a new position, category and name for every request (GET with query parameters). */
export function luaAdd(token: string, seed: number): string {
  return `
local n = 0
math.randomseed(${seed})
request = function()
  n = n + 1
  local path = string.format("/1/pois/add.json?oauth_token=${token}&lat=%.6f&lng=%.6f&categories=%d&name=Bench+%d+%d",
    36 + math.random() * 24, -10 + math.random() * 40, math.random(1, 30), n, math.random(1, 1000000))
  return wrk.format("GET", path)
end
`;
}

/** get.json on existing ids, picked at random. */
export function luaGet(token: string, ids: readonly number[], seed: number): string {
  return `
local ids = {${ids.join(',')}}
math.randomseed(${seed})
request = function()
  return wrk.format("GET", "/1/pois/get.json?oauth_token=${token}&poi=" .. ids[math.random(#ids)])
end
`;
}

/** get.json on the given ids picked at random, each URL made unique by a parameter the service ignores. */
export function luaGetUnique(token: string, ids: readonly number[], seed: number): string {
  return `
local ids = {${ids.join(',')}}
local n = 0
math.randomseed(${seed})
request = function()
  n = n + 1
  return wrk.format("GET", "/1/pois/get.json?oauth_token=${token}&poi=" .. ids[math.random(#ids)] .. "&u=${seed}-" .. n)
end
`;
}

/** get.json on every one of the given ids in turn, from a place drawn by the seed, round and round. */
export function luaGetInTurn(token: string, ids: readonly number[], seed: number): string {
  return `
local ids = {${ids.join(',')}}
math.randomseed(${seed})
local n = math.random(#ids)
request = function()
  n = n % #ids + 1
  return wrk.format("GET", "/1/pois/get.json?oauth_token=${token}&poi=" .. ids[n])
end
`;
}

/** get_near.json around the given positions, radius in metres, at most `total` POIs. */
export function luaNear(token: string, points: ReadonlyArray<readonly [number, number]>, radius: number, total: number, seed: number): string {
  const table = points.map(([lat, lng]) => `{${lat.toFixed(6)},${lng.toFixed(6)}}`).join(',');
  return `
local pts = {${table}}
math.randomseed(${seed})
request = function()
  local p = pts[math.random(#pts)]
  return wrk.format("GET", string.format("/1/pois/get_near.json?oauth_token=${token}&lat=%.6f&lng=%.6f&radius=${radius}&total=${total}", p[1], p[2]))
end
`;
}

/** POSTs of url-encoded forms, taken in turn: one request after another cycles through them. */
export function luaPostForms(path: string, forms: ReadonlyArray<Record<string, string>>): string {
  const bodies = forms.map((form) => luaString(new URLSearchParams(form).toString())).join(',');
  return `
local bodies = {${bodies}}
local n = 0
request = function()
  n = n + 1
  return wrk.format("POST", ${luaString(path)}, { ["Content-Type"] = "application/x-www-form-urlencoded" }, bodies[(n % #bodies) + 1])
end
`;
}

/**
 * The admin UI's map viewport (`POST /console/api/pois.map`, console token as a Bearer header):
 * a 1280 x 800 px screen (screenBox) around the given positions, at each of `zooms` in turn.
 */
export function luaViewport(
  consoleToken: string,
  clientId: string,
  points: ReadonlyArray<readonly [number, number]>,
  seed: number,
  zooms: readonly number[] = [13],
): string {
  const boxes = zooms.flatMap((zoom) => points.map(([lat, lng]) => ({ zoom, ...screenBox(lat, lng, zoom) })));
  const table = boxes.map((b) => `{${b.south.toFixed(6)},${b.north.toFixed(6)},${b.west.toFixed(6)},${b.east.toFixed(6)},${b.zoom}}`).join(',');
  return `
local boxes = {${table}}
local headers = { ["Content-Type"] = "application/json", ["Authorization"] = "Bearer ${consoleToken}" }
math.randomseed(${seed})
request = function()
  local b = boxes[math.random(#boxes)]
  local body = string.format('{"clientId":"${clientId}","south":%.6f,"north":%.6f,"west":%.6f,"east":%.6f,"zoom":%d}', b[1], b[2], b[3], b[4], b[5])
  return wrk.format("POST", "/console/api/pois.map", headers, body)
end
`;
}
