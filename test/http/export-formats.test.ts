import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { CSV_COLUMNS } from '../../main/core/exports/poi-export.js';
import { ApiServer } from '../../main/http/server.js';
import { CSV_FLAVOURS, EXPORT_FORMATS, FILE_FORMATS, IMPORT_FORMATS, type CsvFlavour, type ExportFormat } from '../../shared/file-formats.js';
import { FORMULA_GUARD_COLUMN } from '../../shared/import-columns.js';
import type { JobView } from '../../shared/jobs.js';
import { testCore } from '../support/core.js';

/**
 * Browser mode's downloads and uploads, for every format of shared/file-formats.ts: each is
 * taken by the routes, a download says its type and name by the declaration, and a CSV comes
 * for a spreadsheet or for a program as asked.
 */
const TOKEN = 'test-console-token-0123456789';
const core = testCore();
const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
const server = new ApiServer(core, { port: 0, api: false, console: consoleOptions(core, listener, () => undefined, () => TOKEN) });
const { client_id: clientId } = core.clients.create({ name: 'Formats' });
const NAME = '=cmd|"/c calc"!A1';
let base = '';
const auth = { authorization: `Bearer ${TOKEN}` };

const ask = (body: unknown) => fetch(`${base}/console/downloads`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify(body) });
const download = async (format: ExportFormat, csvFlavour?: CsvFlavour): Promise<Response> => {
  const r = await ask({ clientId, format, csvFlavour });
  expect(r.status).toBe(200);
  const { value } = (await r.json()) as { value: { url: string } };
  return fetch(`${base}${value.url}`);
};
/** As sent: a byte-order mark included, which `Response.text()` would take off. */
const textOf = async (r: Response): Promise<string> => Buffer.from(await r.arrayBuffer()).toString('utf8');
const jobDone = async (job: JobView): Promise<JobView> => {
  let now = job;
  while (now.state === 'running') {
    const r = await fetch(`${base}/console/api/jobs.get`, { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ id: job.id }) });
    now = ((await r.json()) as { value: JobView }).value;
  }
  return now;
};

beforeAll(async () => {
  base = `http://127.0.0.1:${(await server.start()).port}`;
  await core.console['pois.add']({ clientId, fields: { lat: 40.4169, lng: -3.7035, name: NAME, categories: [7] } });
});
afterAll(async () => {
  await server.stop();
  core.close();
});

describe('the file formats over HTTP', () => {
  it('downloads every export format with its declared type and extension', async () => {
    for (const format of EXPORT_FORMATS) {
      const file = await download(format);
      expect(file.status, format).toBe(200);
      expect(file.headers.get('content-type'), format).toBe(FILE_FORMATS[format].mime);
      expect(file.headers.get('content-disposition'), format).toMatch(new RegExp(`^attachment; filename="pois-Formats-\\d{4}-\\d{2}-\\d{2}\\.${FILE_FORMATS[format].extensions[0]}"$`));
      expect((await textOf(file)).length).toBeGreaterThan(0);
    }
  });

  it('downloads a CSV for a spreadsheet unless asked for one for a program, which has no byte-order mark and no guard', async () => {
    const spreadsheet = await textOf(await download('csv'));
    expect(spreadsheet.startsWith(`\uFEFF${CSV_COLUMNS.join(',')},${FORMULA_GUARD_COLUMN}\r\n`)).toBe(true);
    expect((parse(spreadsheet, { bom: true, columns: true }) as Array<Record<string, string>>)[0]!.name).toBe(`'${NAME}`);
    expect(await textOf(await download('csv', 'spreadsheet'))).toBe(spreadsheet);
    const plain = await textOf(await download('csv', 'plain'));
    // Before: the flavour asked was dropped, and the same guarded file came.
    expect(plain.startsWith(`${CSV_COLUMNS.join(',')}\r\n`)).toBe(true);
    expect((parse(plain, { columns: true }) as Array<Record<string, string>>)[0]!.name).toBe(NAME);
    const bad = await ask({ clientId, format: 'csv', csvFlavour: 'excel' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { parameter: 'csvFlavour' } });
  });

  it('takes an upload in every import format, each imported by its own reader', async () => {
    for (const format of IMPORT_FORMATS) {
      const target = core.clients.create({ name: `Upload ${format}` }).client_id;
      const body = await textOf(await download(format, CSV_FLAVOURS[0]));
      const r = await fetch(`${base}/console/imports?clientId=${target}&format=${format}`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...auth }, body });
      expect(r.status, format).toBe(200);
      const done = await jobDone(((await r.json()) as { value: JobView }).value);
      expect(done, format).toMatchObject({ state: 'done', report: { added: 1, refused: [] } });
      expect(((await core.console['pois.search']({ clientId: target, filter: {} })) as Array<{ name: string }>).map((p) => p.name)).toEqual([NAME]);
    }
    const bad = await fetch(`${base}/console/imports?clientId=${clientId}&format=xlsx`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', ...auth }, body: 'x' });
    expect(bad.status).toBe(400);
  });
});
