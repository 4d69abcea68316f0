import { parse } from 'csv-parse/sync';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../shared/jobs.js';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore } from '../support/core.js';

const TOKEN = 'test-console-token-0123456789';
/** The console token as it is now: a test rotates it. */
let token = TOKEN;
const core = testCore();
const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
const server = new ApiServer(core, { port: 0, api: false, console: consoleOptions(core, listener, () => undefined, () => token) });
const { client_id: clientId } = core.clients.create({ name: 'Downloads' });
let base = '';

const ask = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${token}` }) =>
  fetch(`${base}/console/downloads`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  base = `http://127.0.0.1:${(await server.start()).port}`;
  await core.console['pois.add']({ clientId, fields: { lat: 40.4169, lng: -3.7035, name: '=cmd|"/c calc"!A1', categories: [7] } });
});
afterAll(async () => {
  await server.stop();
  core.close();
});

describe('browser mode: exports as downloads', () => {
  it('gives a single-use address for the token, which streams the file as an attachment', async () => {
    const r = await ask({ clientId, format: 'csv' });
    expect(r.status).toBe(200);
    const { value } = (await r.json()) as { value: { url: string } };
    expect(value.url).toMatch(/^\/console\/downloads\/[A-Za-z0-9_-]{32}$/);
    const file = await fetch(`${base}${value.url}`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="pois-Downloads-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parse(await file.text(), { bom: true, columns: true }) as Array<Record<string, string>>;
    expect(rows.map((row) => row.name)).toEqual(['\'=cmd|"/c calc"!A1']);
    // Used once: a second opening (a shared link, the history) gets nothing.
    expect((await fetch(`${base}${value.url}`)).status).toBe(404);
  });

  it('takes back the addresses a console token gave when the token is rotated', async () => {
    const { value } = (await (await ask({ clientId, format: 'csv' })).json()) as { value: { url: string } };
    token = 'a-rotated-console-token-9876543210';
    try {
      // Before: the address still downloaded the client's POIs after the token that gave it was replaced.
      const file = await fetch(`${base}${value.url}`);
      expect(file.status).toBe(404);
      expect(await file.json()).toMatchObject({ message: expect.stringContaining('console token that has changed') });
      const fresh = (await (await ask({ clientId, format: 'csv' })).json()) as { value: { url: string } };
      expect((await fetch(`${base}${fresh.value.url}`)).status).toBe(200);
    } finally {
      token = TOKEN;
    }
  });

  it("downloads an export job's finished file, as often as asked, and refuses a job that has none", async () => {
    const started = (await (await fetch(`${base}/console/api/exports.start`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ clientId, format: 'csv' }) })).json()) as { value: JobView };
    expect(started.value).toMatchObject({ kind: 'export', state: 'running' });
    const ended = await core.jobs.whenDone(started.value.id);
    for (let time = 0; time < 2; time++) {
      const { value } = (await (await ask({ jobId: ended.id })).json()) as { value: { url: string } };
      const file = await fetch(`${base}${value.url}`);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="pois-Downloads-\d{4}-\d{2}-\d{2}\.csv"$/);
      const rows = parse(await file.text(), { bom: true, columns: true }) as Array<Record<string, string>>;
      expect(rows.map((row) => row.name)).toEqual(['\'=cmd|"/c calc"!A1']);
    }
    // A job that is no export, or one with no file: refused when the address is asked for.
    const other = await ask({ jobId: '01890000-0000-7000-8000-000000000099' });
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ ok: false, error: { message: expect.stringMatching(/no job/) } });
  });

  it("names the file after its client, whole in filename* when the name is not in Latin-1", async () => {
    const tokyo = core.clients.create({ name: '東京 Café/Tours' }).client_id;
    const job = await core.jobs.whenDone(core.startExport(tokyo, 'csv', { csvFlavour: 'plain' }).id);
    // The stream is named by the listener's day, the job by the core's clock (pinned here).
    for (const [what, at] of [[{ clientId: tokyo, format: 'csv' }, Date.now()], [{ jobId: job.id }, core.clock.now()]] as const) {
      const day = new Date(at).toISOString().slice(0, 10);
      const { value } = (await (await ask(what)).json()) as { value: { url: string } };
      const file = await fetch(`${base}${value.url}`);
      expect(file.status).toBe(200);
      const header = file.headers.get('content-disposition')!;
      expect(header).toBe(`attachment; filename="pois-__-Cafe-Tours-${day}.csv"; filename*=UTF-8''${encodeURIComponent(`pois-東京-Café-Tours-${day}.csv`)}`);
    }
  });

  it('streams GeoJSON too', async () => {
    const { value } = (await (await ask({ clientId, format: 'geojson' })).json()) as { value: { url: string } };
    const file = await fetch(`${base}${value.url}`);
    expect(file.headers.get('content-type')).toBe('application/geo+json');
    expect(((await file.json()) as { features: unknown[] }).features).toHaveLength(1);
  });

  it('refuses without the token, a bad format, and an unknown client, in the console answer shape', async () => {
    expect((await ask({ clientId, format: 'csv' }, {})).status).toBe(401);
    const bad = await ask({ clientId, format: 'xlsx' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { parameter: 'format' } });
    const { value } = (await (await ask({ clientId: '00000000-0000-4000-8000-000000000000', format: 'csv' })).json()) as { value: { url: string } };
    const unknown = await fetch(`${base}${value.url}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-disposition')).toBeNull();
    expect((await fetch(`${base}/console/downloads/not-a-ticket`)).status).toBe(404);
  });
});

describe('browser mode: imports as uploads', () => {
  const upload = (query: string, body: string, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
    fetch(`${base}/console/imports?${query}`, { method: 'POST', headers: { 'content-type': 'text/csv', ...headers }, body });
  const op = async (name: string, input: unknown): Promise<{ ok: boolean; value: JobView }> =>
    (await (await fetch(`${base}/console/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(input) })).json()) as { ok: boolean; value: JobView };
  // The spool of this test's core (a database in memory: a private folder of its own).
  const spooled = (): string[] => readdirSync(dirname(core.importUploadPath())).filter((f) => f.startsWith('.upload-'));

  it('answers the import’s job at once; the job imports the body, its report read with jobs.get; refuses without the token and with a bad query, importing nothing', async () => {
    const target = core.clients.create({ name: 'Upload target' }).client_id;
    const csv = 'name,lat,lng,categories\nUploaded,40,-3,7\nBad,91,-3,7\n';
    expect((await upload(`clientId=${target}&format=csv`, csv, {})).status).toBe(401);
    const bad = await upload(`clientId=${target}&format=xlsx`, csv);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { parameter: 'format' } });
    const unknown = await upload('clientId=00000000-0000-4000-8000-000000000000&format=csv', csv);
    expect(unknown.status).toBe(404);
    expect(await core.console['pois.search']({ clientId: target, filter: {} })).toEqual([]);
    expect(spooled()).toEqual([]);

    const r = await upload(`clientId=${target}&format=csv&dryRun=false&filename=mine.csv`, csv);
    expect(r.status).toBe(200);
    const { value: job } = (await r.json()) as { value: JobView };
    expect(job).toMatchObject({ kind: 'import', state: 'running', label: 'mine.csv', clientId: target, progress: { totalBytes: csv.length } });
    let now = job;
    while (now.state === 'running') now = (await op('jobs.get', { id: job.id })).value;
    expect(now).toMatchObject({ state: 'done', report: { rows: 2, added: 1, refused: [{ where: 'line 3' }] } });
    expect((await op('jobs.list', { clientId: target })).value).toEqual([now]);
    // The upload's copy goes with its job.
    expect(spooled()).toEqual([]);
  });

  it('reads a whole upload before its job starts: a record over 1 MB after 1,500 rows fails the import, and nothing of it stays', async () => {
    const target = core.clients.create({ name: 'Long record' }).client_id;
    const rows = Array.from({ length: 1_500 }, (_, i) => `Row ${i},40.${i},-3.5,7`);
    // Before: the listener answered before reading the body (the client saw ECONNRESET) and 1,500 rows stayed.
    const csv = `name,lat,lng,categories\n${rows.join('\n')}\n"${'x'.repeat(1_100_000)}",40,-3,7\n`;
    const r = await upload(`clientId=${target}&format=csv&filename=long.csv`, csv);
    expect(r.status).toBe(200);
    const { value: job } = (await r.json()) as { value: JobView };
    let now = job;
    while (now.state === 'running') now = (await op('jobs.get', { id: job.id })).value;
    expect(now).toMatchObject({ state: 'failed', error: expect.stringMatching(/^After row \d+, the file cannot be read: .*a record holds more than 1,000,000 bytes \(MAX_RECORD_BYTES\)/) });
    expect(await core.console['pois.search']({ clientId: target, filter: {} })).toEqual([]);
  });
});
