import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { writePmtiles } from '../../main/build/map-package-writer.js';
import { ApiServer } from '../../main/http/server.js';
import type { JobView } from '../../shared/jobs.js';
import { testCore } from '../support/core.js';
import { streetsAround, tilesAround, vectorTiles } from '../support/map-fixtures.js';

/**
 * The whole-request deadline against the two upload routes, on a real listener whose limits are
 * lowered from 30 s to under a second: an upload that keeps sending is never cut however long it
 * takes; one that stalls is cut and keeps nothing; every other request is still bound by the
 * deadline, including a refused upload's body.
 */
const TOKEN = 'upload-deadline-token-0123456789';
const DEADLINE_MS = 800;
const IDLE_MS = 600;
const HEADERS_MS = 500;
const dir = mkdtempSync(join(tmpdir(), 'upload-deadline-'));
const core = testCore({ file: join(dir, 'poi.sqlite') });
const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
const server = new ApiServer(core, {
  port: 0,
  console: consoleOptions(core, listener, () => undefined, () => TOKEN),
  connections: { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: DEADLINE_MS, uploadIdleTimeoutMs: IDLE_MS },
});
const client = core.clients.create({ name: 'Slow uploads' }).client_id;
let port = 0;

beforeAll(async () => {
  port = (await server.start()).port;
});
afterAll(async () => {
  await server.stop();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Heard {
  status: number;
  body: string;
  /** From the first byte sent to the connection's close. */
  ms: number;
  /** From the last byte sent to the connection's close. */
  quietMs: number;
}

/**
 * Sends a request's head, then its body in `pieces` equal pieces, one every `everyMs`, stopping
 * for good after `stopAfter` pieces (all by default); resolves with what was heard once the
 * server closes the connection (the head asks it to, or it cuts the request off).
 */
function trickle(head: string, body: Buffer, o: { pieces: number; everyMs: number; stopAfter?: number }): Promise<Heard> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const size = Math.ceil(body.length / o.pieces);
    let sent = 0;
    let started = 0;
    let last = 0;
    let timer: NodeJS.Timeout | undefined;
    const giveUp = setTimeout(() => socket.destroy(), 10_000);
    const send = (): void => {
      if (sent >= Math.min(o.pieces, o.stopAfter ?? o.pieces) || socket.destroyed) return;
      socket.write(body.subarray(sent * size, (sent + 1) * size));
      sent += 1;
      last = performance.now();
      timer = setTimeout(send, o.everyMs);
    };
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      started = performance.now();
      socket.write(head);
      send();
    });
    socket.once('close', () => {
      clearTimeout(timer);
      clearTimeout(giveUp);
      const now = performance.now();
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), body: text.slice(text.indexOf('\r\n\r\n') + 4), ms: now - started, quietMs: now - last });
    });
  });
}

const bearer = { authorization: `Bearer ${TOKEN}` };
/** A POST's head; it asks the server to close the connection after its answer unless `keepAlive`. */
const headOf = (path: string, length: number, o: { headers?: Record<string, string>; type?: string; keepAlive?: boolean } = {}): string =>
  [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Content-Type: ${o.type ?? 'application/octet-stream'}`,
    `Content-Length: ${length}`,
    ...(o.keepAlive ? [] : ['Connection: close']),
    ...Object.entries(o.headers ?? bearer).map(([k, v]) => `${k}: ${v}`),
    '\r\n',
  ].join('\r\n');

const csv = Buffer.from(`name,lat,lng,categories\n${Array.from({ length: 200 }, (_, i) => `Slow ${i},40.${i},-3.${i},2\n`).join('')}`);

function mapPackage(): Buffer {
  const file = join(dir, 'slow.pmtiles');
  writePmtiles(file, { format: 'pbf', name: 'Slow', tiles: vectorTiles(streetsAround(2.35, 48.85), tilesAround(2.35, 48.85, 14, 14)) });
  const bytes = readFileSync(file);
  rmSync(file);
  return bytes;
}

/** What the data folder's imports/ and maps/ hold. */
const folders = (): string[] =>
  ['imports', 'maps'].flatMap((sub) => (existsSync(join(dir, sub)) ? readdirSync(join(dir, sub)).map((f) => `${sub}/${f}`) : [])).sort();

/** The folders once the server has finished with a cut-off upload (it removes the file after the close). */
async function settled(before: string[]): Promise<string[]> {
  for (let i = 0; i < 20 && folders().join() !== before.join(); i++) await new Promise((r) => setTimeout(r, 50));
  return folders();
}

const timeoutBody = (heard: Heard): Record<string, unknown> => JSON.parse(heard.body) as Record<string, unknown>;

describe('uploads are bound by their progress, not by the whole-request deadline', () => {
  it('takes an import and a map package sent steadily for twice the deadline', async () => {
    const bytes = mapPackage();
    const steadily = { pieces: 16, everyMs: 100 };
    const [imported, mapped] = await Promise.all([
      trickle(headOf(`/console/imports?clientId=${client}&format=csv&filename=slow.csv`, csv.length), csv, steadily),
      trickle(headOf('/console/maps?name=Slow', bytes.length), bytes, steadily),
    ]);
    expect(imported.status, imported.body).toBe(200);
    expect(imported.ms).toBeGreaterThan(DEADLINE_MS * 1.5);
    const job = (JSON.parse(imported.body) as { value: JobView }).value;
    await core.jobs.whenDone(job.id);
    expect(job.progress.totalBytes).toBe(csv.length);
    expect(mapped.status, mapped.body).toBe(200);
    expect(mapped.ms).toBeGreaterThan(DEADLINE_MS * 1.5);
    // The upload answers the package's import job, which then reads and places the file.
    const mapJob = (JSON.parse(mapped.body) as { value: JobView }).value;
    expect(await core.jobs.whenDone(mapJob.id)).toMatchObject({ state: 'done', report: { name: 'Slow', kind: 'vector' } });
  });

  it('cuts an upload that stalls for the idle limit, says so, and keeps nothing of it', async () => {
    const before = folders();
    const bytes = mapPackage();
    // Past the deadline first, then silent.
    const stalling = { pieces: 20, everyMs: 100, stopAfter: 12 };
    const cut = await Promise.all([
      trickle(headOf(`/console/imports?clientId=${client}&format=csv`, csv.length), csv, stalling),
      trickle(headOf('/console/maps', bytes.length), bytes, stalling),
    ]);
    for (const heard of cut) {
      expect(heard.status, heard.body).toBe(408);
      expect(timeoutBody(heard)).toMatchObject({ code: 408, description: 'EXCEPTION_REQUEST_TIMEOUT', message: expect.stringMatching(/stalled/) });
      expect(heard.ms).toBeGreaterThan(DEADLINE_MS + IDLE_MS);
      expect(heard.quietMs).toBeGreaterThanOrEqual(IDLE_MS - 50);
      expect(heard.quietMs).toBeLessThan(IDLE_MS + 1000);
    }
    expect(await settled(before)).toEqual(before);
  });

  it('still cuts an ordinary request whose body comes steadily but past the deadline', async () => {
    const body = Buffer.from(`{${' '.repeat(2000)}}`);
    const heard = await trickle(headOf('/console/api/clients.list', body.length, { type: 'application/json' }), body, { pieces: 20, everyMs: 100 });
    expect(heard.status, heard.body).toBe(408);
    expect(timeoutBody(heard)).toMatchObject({ code: 408, description: 'EXCEPTION_REQUEST_TIMEOUT' });
    expect(heard.ms).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(heard.ms).toBeLessThan(DEADLINE_MS + 1000);
  });

  it('holds a refused upload to the deadline: no token, no time without end', async () => {
    const before = folders();
    const body = Buffer.alloc(100_000, 1);
    const heard = await trickle(headOf('/console/maps', body.length, { headers: {}, keepAlive: true }), body, { pieces: 100, everyMs: 50 });
    expect(heard.status).toBe(401);
    expect(heard.ms).toBeLessThan(DEADLINE_MS + 1000);
    expect(await settled(before)).toEqual(before);
  });

  it('still cuts headers that do not end in time, on an upload route too', async () => {
    const heard = await trickle(`POST /console/maps HTTP/1.1\r\nHost: 127.0.0.1\r\n`, Buffer.alloc(0), { pieces: 1, everyMs: 0 });
    expect(heard.status, heard.body).toBe(408);
    // Node checks the headers' deadline once a second.
    expect(heard.ms).toBeLessThan(HEADERS_MS + 1500);
  });

  it('gives each request of a keep-alive connection a deadline of its own', async () => {
    const socket = connect(port, '127.0.0.1');
    let heard = '';
    socket.on('data', (c: Buffer) => (heard += c.toString()));
    socket.on('error', () => undefined);
    await new Promise((r) => socket.once('connect', r));
    const answers = async (n: number): Promise<string[]> => {
      for (let i = 0; i < 40 && (heard.match(/^HTTP\/1\.1 \d{3}/gm) ?? []).length < n; i++) await new Promise((r) => setTimeout(r, 50));
      return (heard.match(/^HTTP\/1\.1 \d{3}/gm) ?? []).map((line) => line.slice(9));
    };
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect(await answers(1)).toEqual(['200']);
    // Past the deadline from the connection's start, within the keep-alive limit.
    await new Promise((r) => setTimeout(r, DEADLINE_MS + 200));
    socket.write(`POST /console/api/clients.list HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n{`);
    await new Promise((r) => setTimeout(r, DEADLINE_MS / 2));
    socket.write('  }');
    expect(await answers(2)).toEqual(['200', '200']);
    socket.destroy();
  });
});
