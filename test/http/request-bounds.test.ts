import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { ApiServer } from '../../main/http/server.js';
import { MAX_RADIUS_METRES, MAX_TOTAL } from '../../shared/schemas/pois.js';
import { testCore } from '../support/core.js';

/**
 * The bounds that keep one request from holding the service for long (docs/performance.md):
 * each request past one is refused with a 400 that names the parameter and the bound, and
 * changes nothing; the request at the bound is answered.
 */
const TOKEN = 'test-console-token-0123456789';
const core = testCore();
const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
const server = new ApiServer(core, { port: 0, console: consoleOptions(core, listener, () => undefined, () => TOKEN) });
const { client_id: clientId, admin_token: admin } = core.clients.create({ name: 'Bounds' });
let base = '';

beforeAll(async () => {
  base = `http://127.0.0.1:${(await server.start()).port}`;
  core.pois.addMany(clientId, [{ name: 'Sol', lat: 40.4169, lng: -3.7035, categories: [7] }]);
});
afterAll(async () => {
  await server.stop();
  core.close();
});

const api = async (path: string, query: Record<string, string | number>): Promise<{ status: number; body: Record<string, unknown> }> => {
  const r = await fetch(`${base}/1/${path}.json?${new URLSearchParams(Object.entries({ oauth_token: admin, ...query }).map(([k, v]) => [k, String(v)]))}`);
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};
const consoleOp = async (name: string, input: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
  const r = await fetch(`${base}/console/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: JSON.stringify(input) });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};
const SOL = { lat: 40.4169, lng: -3.7035 };
const VIEW = { clientId, south: 40, north: 41, west: -4, east: -3, zoom: 12 };

describe('the bounds of a request', () => {
  it('answers at each bound and refuses one past it, naming the parameter and the bound', async () => {
    const cases: Array<{ path: string; at: Record<string, string | number>; past: Record<string, string | number>; parameter: string; says: RegExp }> = [
      { path: 'pois/get_near', at: { ...SOL, radius: MAX_RADIUS_METRES }, past: { ...SOL, radius: MAX_RADIUS_METRES + 1 }, parameter: 'radius', says: /at most 20037509 metres/ },
      { path: 'pois/get_near', at: { ...SOL, radius: 100, total: MAX_TOTAL }, past: { ...SOL, radius: 100, total: MAX_TOTAL + 1 }, parameter: 'total', says: /at most 1000/ },
      { path: 'pois/get_where', at: { total: MAX_TOTAL }, past: { total: MAX_TOTAL + 1 }, parameter: 'total', says: /at most 1000/ },
      { path: 'pois/get_where', at: { q: 's'.repeat(200) }, past: { q: 's'.repeat(201) }, parameter: 'q', says: /200/ },
      {
        path: 'pois/get_where',
        at: { pois: Array.from({ length: MAX_TOTAL }, (_, i) => i + 1).join(',') },
        past: { pois: Array.from({ length: MAX_TOTAL + 1 }, (_, i) => i + 1).join(',') },
        parameter: 'pois',
        says: /at most 1000/,
      },
    ];
    for (const c of cases) {
      const at = await api(c.path, c.at);
      expect(at.status, `${c.path} at the bound of ${c.parameter}`).toBe(200);
      const past = await api(c.path, c.past);
      expect(past.status, `${c.path} past the bound of ${c.parameter}`).toBe(400);
      expect(past.body).toMatchObject({ code: 400, parameter: c.parameter });
      expect(String(past.body.description) + String(past.body.message ?? ''), JSON.stringify(past.body)).toMatch(c.says);
    }
  });

  it('refuses a map view past its zoom or its search text, and answers one at them', async () => {
    expect((await consoleOp('pois.map', { ...VIEW, zoom: 24, q: 's'.repeat(200) })).status).toBe(200);
    for (const [input, parameter] of [[{ ...VIEW, zoom: 25 }, 'zoom'], [{ ...VIEW, q: 's'.repeat(201) }, 'q']] as const) {
      const past = await consoleOp('pois.map', input);
      expect(past.status).toBe(400);
      expect(past.body).toMatchObject({ ok: false, error: { code: 400, parameter } });
    }
  });
});
