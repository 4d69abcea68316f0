import { Agent, request as httpRequest } from 'node:http';
import { percentile } from './stats.js';
import type { LoadResult } from './wrk.js';

/** One request of a Node-generated load; always to 127.0.0.1. */
export interface Req {
  method: 'GET' | 'POST';
  path: string;
  /** A url-encoded form body (POST). */
  form?: Record<string, string>;
  /** A JSON body (POST), instead of a form. */
  json?: unknown;
  headers?: Record<string, string>;
  /** A label for the totals (load test). */
  kind?: string;
}

export interface Answer {
  status: number;
  body: string;
}

/** Sends one request over `agent` (or a fresh connection) to 127.0.0.1:port, with a 10 s limit. */
export function send(port: number, req: Req, agent?: Agent): Promise<Answer> {
  const body = req.json !== undefined ? JSON.stringify(req.json) : req.form ? new URLSearchParams(req.form).toString() : undefined;
  const type = req.json !== undefined ? 'application/json' : 'application/x-www-form-urlencoded';
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: req.method,
        path: req.path,
        ...(agent ? { agent } : {}),
        timeout: 10_000,
        headers: { ...req.headers, ...(body === undefined ? {} : { 'content-type': type, 'content-length': Buffer.byteLength(body) }) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    r.on('timeout', () => r.destroy(new Error('timeout after 10 s')));
    r.on('error', reject);
    r.end(body);
  });
}

/** `send` that expects 200 and a JSON reply. */
export async function sendJson<T>(port: number, req: Req, agent?: Agent): Promise<T> {
  const answer = await send(port, req, agent);
  if (answer.status !== 200) throw new Error(`${req.method} ${req.path.split('?')[0]}: ${answer.status} ${answer.body.slice(0, 300)}`);
  return JSON.parse(answer.body) as T;
}

export interface NodeLoadResult extends LoadResult {
  byKind: Record<string, number>;
  /** p50 and p99 of each kind, in milliseconds. */
  latencyByKind: Record<string, { p50: number; p99: number }>;
  statuses: Record<string, number>;
  /** Requests whose answer `check` refused, or that failed on the socket. */
  failed: number;
  /** A few failures, to print. */
  samples: string[];
}

export interface NodeLoad {
  port: number;
  connections: number;
  seconds: number;
  /** The i-th request. */
  next: (i: number) => Req;
  /** Whether an answer is right; default: status 200. */
  check?: (req: Req, answer: Answer) => boolean;
  /** A bound on the number of requests, whatever the duration. */
  maxRequests?: number;
}

/**
 * A minimal load generator: `connections` loops over one keep-alive agent, each sending its next
 * request when the previous one is answered, until the time is up. It runs on this process's
 * event loop and tops out near 11k req/s on this machine, so its ratios flatter a slow server:
 * figures from it are labelled `node`.
 */
export async function nodeLoad(load: NodeLoad): Promise<NodeLoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: load.connections });
  const check = load.check ?? ((_req: Req, a: Answer) => a.status === 200);
  const max = load.maxRequests ?? 10_000_000;
  const latencies: number[] = [];
  const kindLatencies: Record<string, number[]> = {};
  const byKind: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  const samples: string[] = [];
  let issued = 0;
  let failed = 0;
  let non2xx = 0;
  let socketErrors = 0;
  const t0 = performance.now();
  const deadline = t0 + load.seconds * 1000;
  const loop = async (): Promise<void> => {
    while (performance.now() < deadline && issued < max) {
      const req = load.next(issued++);
      const kind = req.kind ?? req.path.split('?')[0] ?? '';
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      const start = performance.now();
      try {
        const answer = await send(load.port, req, agent);
        const ms = performance.now() - start;
        latencies.push(ms);
        (kindLatencies[kind] ??= []).push(ms);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        if (answer.status < 200 || answer.status >= 400) non2xx++;
        if (!check(req, answer)) {
          failed++;
          if (samples.length < 5) samples.push(`${kind}: ${answer.status} ${answer.body.slice(0, 200)}`);
        }
      } catch (error) {
        socketErrors++;
        failed++;
        statuses.error = (statuses.error ?? 0) + 1;
        if (samples.length < 5) samples.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: load.connections }, loop));
  const seconds = (performance.now() - t0) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const latencyByKind: Record<string, { p50: number; p99: number }> = {};
  for (const [kind, list] of Object.entries(kindLatencies)) {
    list.sort((a, b) => a - b);
    latencyByKind[kind] = { p50: percentile(list, 50), p99: percentile(list, 99) };
  }
  return {
    tool: 'node',
    connections: load.connections,
    seconds,
    requests: latencies.length + socketErrors,
    rps: (latencies.length + socketErrors) / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    non2xx,
    socketErrors,
    byKind,
    latencyByKind,
    statuses,
    failed,
    samples,
  };
}

/** The median of some numbers (NaN when there are none). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
