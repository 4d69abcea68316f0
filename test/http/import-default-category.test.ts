import Fastify from 'fastify';
import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../shared/jobs.js';
import type { PoiReply } from '../../shared/wire.js';
import { mountImportRoutes } from '../../main/http/import-routes.js';
import { testCore } from '../support/core.js';

/** Browser mode's upload with a default category, on a real listener (docs/admin-guide.md#the-import-report). */
const TOKEN = 'default-category-token-0123456789';
const core = testCore();
const app = Fastify();
const client = core.clients.create({ name: 'Default category' }).client_id;
let base = '';

beforeAll(async () => {
  await mountImportRoutes(app, { token: () => TOKEN, imports: core });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await app.close();
  core.close();
});

const upload = (query: string): Promise<Response> =>
  fetch(`${base}/console/imports?clientId=${client}&format=csv&${query}`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` }, body: 'name,lat,lng\nBare,40.1,-3.1\n' });

describe('an upload with a default category', () => {
  it('puts the rows that name none in it', async () => {
    const answer = await upload('defaultCategory=Restaurant');
    expect(answer.status).toBe(200);
    const job = await core.jobs.whenDone(((await answer.json()) as { value: JobView }).value.id);
    // Before: the query's defaultCategory was ignored and the row refused for want of a category.
    expect(job.report).toMatchObject({ added: 1, refusedCount: 0 });
    const [poi] = (await core.console['pois.search']({ clientId: client, filter: {} })) as PoiReply[];
    expect(poi!.categories.map((c) => c.Description)).toEqual(['Restaurant']);
  });

  it('refuses one the client does not have at once, naming the field, and keeps nothing of the file', async () => {
    const answer = await upload('defaultCategory=Food%20truck');
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      ok: false,
      error: { parameter: 'category', message: 'This client has no category “Food truck”: choose one of its categories, or import with Create missing categories' },
    });
    expect(readdirSync(dirname(core.importUploadPath())).filter((f) => f.startsWith('.upload-'))).toEqual([]);
  });
});
