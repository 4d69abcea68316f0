import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleOptions, createInvoke, fixedListener } from '../../main/app/console.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore } from '../support/core.js';

const TOKEN = 'test-console-token-0123456789';
const core = testCore();
const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
const server = new ApiServer(core, { port: 0, api: false, console: consoleOptions(core, listener, () => undefined, () => TOKEN) });
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
  it('refuses every operation without the token in its Authorization header, saying it is the console asking', async () => {
    const attempts: Array<Record<string, string>> = [{}, { authorization: 'Bearer nope' }, { authorization: `bearer ${TOKEN}x` }, { authorization: TOKEN }, { cookie: `poi_console=${TOKEN}` }];
    for (const headers of attempts) {
      const r = await op('clients.create', { name: 'Refused' }, headers);
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="POI console"');
      expect(await r.json()).toMatchObject({ ok: false, error: { code: 401, description: 'EXCEPTION_TOKEN_REQUIRED' } });
    }
    const inQuery = await fetch(`${base}/console/api/clients.create?token=${TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Refused"}' });
    expect(inQuery.status).toBe(401);
    expect(core.clients.list().map((c) => c.name)).not.toContain('Refused');
  });

  it('serves the page, which holds no secret, to anyone, with a strict CSP and never a cookie', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('set-cookie')).toBeNull();
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain('https://tile.openstreetmap.org');
    expect(csp).not.toContain("'unsafe-eval'");
    expect((await fetch(`${base}/?token=${TOKEN}`, { redirect: 'manual' })).headers.get('set-cookie')).toBeNull();
    const ok = await op('clients.list', {});
    expect(ok.status).toBe(200);
    expect(ok.headers.get('set-cookie')).toBeNull();
  });

  it('grants no other origin anything: no CORS headers, even to a preflight', async () => {
    const origin = { origin: 'http://127.0.0.1:9' };
    const preflight = await fetch(`${base}/console/api/clients.create`, {
      method: 'OPTIONS',
      headers: { ...origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    const answered = await op('clients.list', {}, { authorization: `Bearer ${TOKEN}`, ...origin });
    for (const r of [preflight, answered, await fetch(`${base}/`, { headers: origin })]) {
      const granted: string[] = [];
      r.headers.forEach((_value, name) => {
        if (name.startsWith('access-control-')) granted.push(name);
      });
      expect(granted).toEqual([]);
    }
  });

  it('keeps a tile server on the local network and allows exactly its origin; refuses a public http one, changing nothing', async () => {
    const local = { tileUrl: 'http://192.168.1.20:8080/{z}/{x}/{y}.png', tileAttribution: 'Our <b>tiles</b>', tileAttributionUrl: '' };
    expect(await (await op('settings.set', local)).json()).toEqual({ ok: true, value: { ...local, tileCacheMb: 500 } });
    const csp = (await fetch(`${base}/`)).headers.get('content-security-policy') ?? '';
    expect(csp).toContain("img-src 'self' data: blob: http://192.168.1.20:8080;");
    expect(csp).not.toContain('openstreetmap');
    for (const bad of [{ tileUrl: 'http://tiles.example.org/{z}/{x}/{y}.png' }, { tileAttributionUrl: 'javascript:alert(1)' }]) {
      const refused = await op('settings.set', { ...local, ...bad });
      expect(await refused.json()).toMatchObject({ ok: false, error: { code: 400, parameter: Object.keys(bad)[0] } });
    }
    expect(await (await op('settings.get', {})).json()).toEqual({ ok: true, value: { ...local, tileCacheMb: 500 } });
  });

  it('validates every input with the contract schema before the core sees it', async () => {
    const bad = await op('pois.add', { clientId: 'not-a-guid', fields: {} });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ ok: false, error: { code: 400, parameter: 'clientId' } });
    const c = (await (await op('clients.create', { name: 'Console' })).json()) as { value: { client_id: string } };
    const outOfRange = await op('pois.add', { clientId: c.value.client_id, fields: { lat: 91, lng: 0, name: 'x', categories: [1] } });
    expect(await outOfRange.json()).toMatchObject({ ok: false, error: { description: 'EXCEPTION_INVALID_PARAMETER', parameter: 'lat' } });
    // JSON can carry a lone surrogate, which SQLite would keep as U+FFFD: refused, as the API's wire refuses it.
    const surrogate = await op('pois.add', { clientId: c.value.client_id, fields: { lat: 40, lng: 0, name: 'a\ud800b', categories: [1] } });
    expect(await surrogate.json()).toMatchObject({ ok: false, error: { code: 400, parameter: 'name' } });
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

describe('the console: possible duplicates for the form; names that must differ', () => {
  const call = async (name: string, input: unknown) => {
    const r = await op(name, input);
    return { status: r.status, body: (await r.json()) as { ok: boolean; value?: unknown; error?: unknown } };
  };

  it('pois.duplicates lists similar names within 50 m with their distance, leaving out the POI being edited', async () => {
    const clientId = core.clients.create({ name: 'Guía' }).client_id;
    const prado = await core.pois.add(clientId, null, { lat: 40.41378, lng: -3.69213, name: 'Museo del Prado', categories: [6], geocode: false });
    const found = await call('pois.duplicates', { clientId, lat: 40.41378 + 12 / 111_195, lng: -3.69213, name: 'museo del prado.' });
    expect(found.body).toEqual({ ok: true, value: [{ id: prado.id, name: 'Museo del Prado', distance_m: 12 }] });
    expect((await call('pois.duplicates', { clientId, lat: 40.41378, lng: -3.69213, name: 'Museo del Prado', except: prado.id })).body).toEqual({ ok: true, value: [] });
    expect((await call('pois.duplicates', { clientId, lat: 40.41378, lng: -3.69213, name: '' })).body).toEqual({ ok: true, value: [] });
  });

  it('refuses a category or a client application named as another, with 409', async () => {
    const clientId = core.clients.create({ name: 'Ayuntamiento' }).client_id;
    expect((await call('categories.add', { clientId, desc: 'Fuentes' })).body.ok).toBe(true);
    const again = await call('categories.add', { clientId, desc: 'fuentes' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ ok: false, error: { code: 409, description: 'EXCEPTION_ALREADY_EXISTS', parameter: 'desc' } });
    const client = await call('clients.create', { name: 'AYUNTAMIENTO' });
    expect(client.status).toBe(409);
    expect(client.body).toMatchObject({ ok: false, error: { code: 409, description: 'EXCEPTION_ALREADY_EXISTS', parameter: 'name' } });
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
