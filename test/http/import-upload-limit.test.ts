import Fastify from 'fastify';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../shared/jobs.js';
import { mountImportRoutes } from '../../main/http/import-routes.js';
import { testCore } from '../support/core.js';

/**
 * The largest upload to import (MAX_IMPORT_FILE_BYTES, 4 GiB) at the limit and one byte over, on
 * a real listener with the limit lowered to 1,000 bytes (the route's own option, for tests): the
 * same code path, without sending gigabytes. Over it, by the announced length or counted as the
 * body arrives, the upload is refused with 413 and nothing is kept.
 */
const TOKEN = 'upload-limit-token-0123456789';
const LIMIT = 1_000;
const core = testCore();
const app = Fastify();
const client = core.clients.create({ name: 'Upload limit' }).client_id;
let base = '';

beforeAll(async () => {
  await mountImportRoutes(app, { token: () => TOKEN, imports: core, maxBytes: LIMIT });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.close();
  core.close();
});

/** A CSV of exactly `bytes` bytes: a header, one row, and a description padding it out. */
const csvOf = (bytes: number): string => {
  const head = 'name,lat,lng,categories,desc\nPadded,40,-3,2,';
  return `${head}${'x'.repeat(bytes - head.length - 1)}\n`;
};
const spooled = (): string[] => readdirSync(dirname(core.importUploadPath())).filter((f) => f.startsWith('.upload-'));

describe('the largest upload to import', () => {
  it('takes a file of exactly the limit, and refuses one byte more (by its length, or as it arrives) keeping nothing', async () => {
    const at = await fetch(`${base}/console/imports?clientId=${client}&format=csv`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: csvOf(LIMIT) });
    expect(at.status).toBe(200);
    const job = ((await at.json()) as { value: JobView }).value;
    expect(job.progress.totalBytes).toBe(LIMIT);
    await core.jobs.whenDone(job.id);

    const over = await fetch(`${base}/console/imports?clientId=${client}&format=csv`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: csvOf(LIMIT + 1) });
    expect(over.status).toBe(413);
    expect(await over.json()).toMatchObject({ ok: false, error: { message: expect.stringContaining('MAX_IMPORT_FILE_BYTES') } });

    // No length announced: counted as it arrives.
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(csvOf(LIMIT + 1)));
        controller.close();
      },
    });
    const streamed = await fetch(`${base}/console/imports?clientId=${client}&format=csv`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: chunked, duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(spooled()).toEqual([]);
  });
});
