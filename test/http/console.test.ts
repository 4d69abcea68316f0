import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOptions, createInvoke, fixedListener } from '../../main/app/console.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore } from '../support/core.js';

const TOKEN = 'test-console-token-0123456789';
const core = testCore();
const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
const server = new ApiServer(core, { port: 0, api: false, console: consoleOptions(core, listener, () => undefined, TOKEN) });
let base = '';

beforeAll(async () => {
  base = `http://127.0.0.1:${(await server.start()).port}`;
});
afterAll(async () => {
  await server.stop();
  core.close();
});

const op = (name: string, input: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
  fetch(`${base}/console/api/${name}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(input) });

describe('browser mode: the console behind its token', () => {
  it('answers 401 to the UI and to operations without the token, or with a wrong one', async () => {
    expect((await fetch(`${base}/`)).status).toBe(401);
    expect((await fetch(`${base}/?token=wrong`)).status).toBe(401);
    const r = await op('clients.list', {}, {});
    expect(r.status).toBe(401);
    expect(await r.json()).toMatchObject({ ok: false, error: { code: 401, description: 'EXCEPTION_TOKEN_REQUIRED' } });
    expect((await op('clients.list', {}, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await fetch(`${base}/assets/anything.js`)).status).toBe(401);
  });

  it('trades the token in the URL for an HttpOnly SameSite=Strict cookie, which then opens the UI', async () => {
    const first = await fetch(`${base}/?token=${TOKEN}`, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/');
    const cookie = first.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const page = await fetch(`${base}/`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain('img-src');
    expect(csp).toContain('https://tile.openstreetmap.org');
    expect(csp).not.toContain("'unsafe-eval'");
    expect((await op('clients.list', {}, { cookie: cookie.split(';')[0]! })).status).toBe(200);
  });

  it('validates every input with the contract schema before the core sees it', async () => {
    const bad = await op('pois.add', { clientId: 'not-a-guid', fields: {} });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: 400, parameter: 'clientId' } });
    const c = (await (await op('clients.create', { name: 'Console' })).json()) as { value: { client_id: string } };
    const outOfRange = await op('pois.add', { clientId: c.value.client_id, fields: { lat: 91, lng: 0, name: 'x', categories: [1] } });
    expect(await outOfRange.json()).toMatchObject({ ok: false, error: { description: 'EXCEPTION_INVALID_PARAMETER', parameter: 'lat' } });
    expect(core.db.prepare('SELECT count(*) FROM pois').pluck().get()).toBe(0);
    const unknown = await op('pois.nuke', {});
    expect(await unknown.json()).toMatchObject({ ok: false, error: { code: 404 } });
  });

  it('adds, maps and updates POIs through the same core functions as the API', async () => {
    const c = (await (await op('clients.create', { name: 'Mapper' })).json()) as { value: { client_id: string } };
    const clientId = c.value.client_id;
    const added = (await (await op('pois.add', { clientId, fields: { lat: 40.4169, lng: -3.7035, name: 'Sol', categories: [7] } })).json()) as {
      value: { id: number };
    };
    const view = (await (await op('pois.map', { clientId, south: 40, north: 41, west: -4, east: -3, zoom: 17 })).json()) as {
      value: { points: Array<{ poi?: number; name?: string }>; total: number };
    };
    expect(view.value.points).toEqual([expect.objectContaining({ poi: added.value.id, name: 'Sol', count: 1 })]);
    const moved = (await (await op('pois.update', { clientId, fields: { poi: added.value.id, lat: 41, lng: 2 } })).json()) as {
      value: { latitude: number };
    };
    expect(moved.value.latitude).toBe(41);
    const cleared = await op('pois.update', { clientId, fields: { poi: added.value.id, name: null } });
    expect(await cleared.json()).toMatchObject({ ok: false, error: { parameter: 'name' } });
  });

  it('refuses to reconfigure a listener started from the command line', async () => {
    const r = await op('listener.configure', { enabled: false, port: 8080, scope: 'local' });
    expect(await r.json()).toMatchObject({ ok: false, error: { code: 403 } });
    expect(((await (await op('listener.status', {})).json()) as { value: { configurable: boolean } }).value.configurable).toBe(false);
  });

  it('does not serve the API when told not to', async () => {
    expect((await fetch(`${base}/1/users.json`)).status).toBe(404);
  });
});

describe('the dispatch used by IPC', () => {
  it('answers {ok:false} with catalog errors, never throws', async () => {
    const invoke = createInvoke(core, listener, () => undefined);
    expect(await invoke('clients.create', { name: '' })).toMatchObject({ ok: false, error: { code: 400, parameter: 'name' } });
    expect(await invoke('clients.create', null)).toMatchObject({ ok: false, error: { code: 400 } });
    expect(await invoke('toString', {})).toMatchObject({ ok: false, error: { code: 404 } });
    expect(await invoke('clients.create', { name: 'Fine' })).toMatchObject({ ok: true, value: { name: 'Fine', implicit_flow: false } });
  });
});
