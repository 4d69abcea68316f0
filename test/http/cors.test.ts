import { afterEach, describe, expect, it } from 'vitest';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { ApiServer } from '../../main/http/server.js';
import { ListenerControl } from '../../main/http/listener-control.js';
import { CONSOLE } from '../../main/core/store/write-path.js';
import { freePort } from '../support/free-port.js';
import { corsOrigins } from '../../shared/cors.js';
import { testCore, type TestCore } from '../support/core.js';

/** CORS on the /1/ API (docs/devices.md#cors), on a real listener: its preflights and its replies. */
const TOKEN = 'test-console-token-0123456789';
const DEV = 'http://localhost:5173';
const running: Array<{ server: ApiServer; core: TestCore }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.stop();
    r.core.close();
  }
});

async function serve(cors: (() => readonly string[]) | undefined): Promise<{ base: string; admin: string }> {
  const core = testCore();
  const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
  const server = new ApiServer(core, { port: 0, ...(cors ? { cors } : {}), console: consoleOptions(core, listener, () => undefined, () => TOKEN) });
  running.push({ server, core });
  const { port } = await server.start();
  return { base: `http://127.0.0.1:${port}`, admin: core.clients.create({ name: 'Cors' }).admin_token };
}

const preflight = (url: string, origin: string, method = 'POST', headers = 'content-type') =>
  fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });

describe('CORS on the API', () => {
  it('answers a listed origin\'s preflight with 204 and the Fetch standard\'s headers', async () => {
    const s = await serve(() => [DEV]);
    const r = await preflight(`${s.base}/1/pois/add.json`, DEV);
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe(DEV);
    expect(r.headers.get('access-control-allow-methods')?.split(/,\s*/).sort()).toEqual(['DELETE', 'GET', 'HEAD', 'POST', 'PUT']);
    expect(r.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(r.headers.get('access-control-max-age')).toBe('600');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    expect(r.headers.get('vary')).toMatch(/Origin/);
  });

  it('gives another origin, a plain OPTIONS and the console no CORS header', async () => {
    const s = await serve(() => [DEV]);
    const other = await preflight(`${s.base}/1/pois/add.json`, 'http://evil.example');
    expect(other.status).toBe(405);
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const plain = await fetch(`${s.base}/1/pois/add.json`, { method: 'OPTIONS', headers: { origin: DEV } });
    expect(plain.status).toBe(405);
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const consoleOp = await preflight(`${s.base}/console/api/clients.list`, DEV, 'POST', 'authorization,content-type');
    expect(consoleOp.headers.get('access-control-allow-origin')).toBeNull();
    expect(consoleOp.status).toBeGreaterThanOrEqual(400);
    const read = await fetch(`${s.base}/1/pois/categories.json?oauth_token=${s.admin}`, { headers: { origin: 'http://evil.example' } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("lets a listed origin read replies and refusals, with the API's own headers exposed", async () => {
    const s = await serve(() => [DEV]);
    const read = await fetch(`${s.base}/1/pois/categories.json?oauth_token=${s.admin}`, { headers: { origin: DEV } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(DEV);
    expect(read.headers.get('access-control-expose-headers')).toBe('X-Possible-Duplicates, Retry-After, X-Fault-Injected');
    const refused = await fetch(`${s.base}/1/pois/get.json?poi=1`, { headers: { origin: DEV } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(DEV);
    const posted = await fetch(`${s.base}/1/pois/categories/add.json`, {
      method: 'POST',
      headers: { origin: DEV, 'content-type': 'application/json' },
      body: JSON.stringify({ oauth_token: s.admin, desc: 'Tapas' }),
    });
    expect(posted.status).toBe(200);
    expect(posted.headers.get('access-control-allow-origin')).toBe(DEV);
  });

  it('is off by default and with an empty list, and follows a change without a restart', async () => {
    for (const cors of [undefined, () => []]) {
      const s = await serve(cors);
      const r = await preflight(`${s.base}/1/pois/add.json`, DEV);
      expect(r.status).toBe(405);
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
    let list: string[] = [];
    const s = await serve(() => list);
    const url = `${s.base}/1/pois/categories.json?oauth_token=${s.admin}`;
    expect((await fetch(url, { headers: { origin: DEV } })).headers.get('access-control-allow-origin')).toBeNull();
    list = ['*'];
    expect((await fetch(url, { headers: { origin: DEV } })).headers.get('access-control-allow-origin')).toBe('*');
    expect((await preflight(`${s.base}/1/users/login.json`, 'http://any.example', 'DELETE')).status).toBe(204);
  });

  it('takes origins as browsers send them, and refuses a page address or another scheme in plain words', () => {
    expect(corsOrigins.parse(['http://LocalHost:5173/', 'http://localhost:5173', 'https://app.example:443', '*'])).toEqual(['http://localhost:5173', 'https://app.example', '*']);
    for (const bad of ['http://localhost:5173/app', 'localhost:5173', 'ftp://x.example', 'http://x.example/?q=1', 'null']) {
      const result = corsOrigins.safeParse([bad]);
      expect({ bad, ok: result.success }).toEqual({ bad, ok: false });
      expect(result.error?.issues[0]?.message).toMatch(/must be an origin such as http:\/\/localhost:5173/);
    }
  });
});

describe('CORS in the listener settings', () => {
  it('applies the saved origins to the running listener, and a change at once', async () => {
    const core = testCore();
    const control = new ListenerControl(core);
    try {
      const started = await control.configure({ enabled: true, port: await freePort(), scope: 'local', corsOrigins: [DEV] });
      expect(started.corsOrigins).toEqual([DEV]);
      const url = `http://127.0.0.1:${started.port}/1/pois/categories.json?oauth_token=${core.clients.create({ name: 'Saved' }).admin_token}`;
      expect((await fetch(url, { headers: { origin: DEV } })).headers.get('access-control-allow-origin')).toBe(DEV);
      // Port and scope unchanged: no restart, and the new list answers the next request.
      const changed = await control.configure({ enabled: true, port: started.port, scope: 'local', corsOrigins: ['http://other.example'] });
      expect(changed.corsOrigins).toEqual(['http://other.example']);
      expect((await fetch(url, { headers: { origin: DEV } })).headers.get('access-control-allow-origin')).toBeNull();
      // A configure that does not name them keeps them.
      expect((await control.configure({ enabled: true, port: started.port, scope: 'local' })).corsOrigins).toEqual(['http://other.example']);
      expect(core.settings.listener().corsOrigins).toEqual(['http://other.example']);
    } finally {
      await control.stop();
      core.close();
    }
  });

  it('reads settings saved before CORS existed as they were, with no origin', () => {
    const core = testCore();
    core.writes.now(CONSOLE, () => core.db.prepare("INSERT INTO settings (key, value) VALUES ('listener', ?)").run(JSON.stringify({ enabled: true, port: 8181, scope: 'lan' })));
    expect(core.settings.listener()).toEqual({ enabled: true, port: 8181, scope: 'lan', corsOrigins: [], faults: [] });
    core.close();
  });
});
