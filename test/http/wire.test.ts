import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http.js';
import { rawRequest } from '../support/raw-http.js';
import { poiFixture } from '../support/fixture.js';

let t: TestServer;
let admin: string;
let apiKey: string;
let port: number;

beforeAll(async () => {
  t = await startTestServer();
  const c = t.core.clients.create({ name: 'Demo' });
  admin = c.admin_token;
  apiKey = c.client_id;
  port = Number(new URL(t.base).port);
  const r = await t.post('/1/users.json', { access_token: admin, username: 'wireuser1', pwd: 'secret1', email: 'wire@example.com' });
  expect(r.status).toBe(200);
});
afterAll(() => t.close());

const errorShape = (r: { status: number; json: Record<string, unknown> }) => {
  expect(r.json.code).toBe(r.status);
  expect(r.json.description).toMatch(/^EXCEPTION_[A-Z_]+$/);
};

describe('wire habits of real clients', () => {
  it('matches parameter names case-insensitively', async () => {
    const r = await t.post('/1/users/login.json', { API_KEY: apiKey, UserName: 'wireuser1', PWD: 'secret1', ExpiresIn: 30 });
    expect(r.status).toBe(200);
    expect((r.json.accreditation as { expirationtime: unknown }).expirationtime).not.toBeNull();
  });

  it('takes oauth_token as access_token', async () => {
    const r = await t.get('/1/users.json', { oauth_token: admin });
    expect(r.status).toBe(200);
    expect(Array.isArray(r.body)).toBe(true);
  });

  it('takes POST parameters from the query string, mixed with the body', async () => {
    const r = await t.post(`/1/users/login.json?api_key=${apiKey}&username=wireuser1`, { pwd: 'secret1' }, 'multipart');
    expect(r.status).toBe(200);
  });

  it('reads + as a space and percent-encoded UTF-8', async () => {
    const r = await fetch(`${t.base}/1/users.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `access_token=${admin}&username=wireuser2&pwd=p%C3%A4ss+w%C3%B6rd&email=w2%40example.com`,
    });
    expect(res(await r.json())).toMatchObject({ name: 'wireuser2' });
    const login = await t.post('/1/users/login.json', { api_key: apiKey, username: 'wireuser2', pwd: 'päss wörd' });
    expect(login.status).toBe(200);
  });

  it('accepts GET-documented operations over POST and answers 405 to other verbs', async () => {
    expect((await t.post('/1/users/me/show.json', { access_token: admin })).status).toBe(404);
    for (const method of ['PUT', 'PATCH', 'DELETE']) {
      const r = await t.call(method, '/1/users/me/show.json', { access_token: admin }, 'query');
      expect(r.status, method).toBe(405);
      expect(r.json).toMatchObject({ code: 405, description: 'EXCEPTION_METHOD_NOT_ALLOWED' });
    }
    const getLogin = await t.get('/1/users/login.json', { api_key: apiKey });
    expect(getLogin.json).toMatchObject({ code: 405, description: 'EXCEPTION_METHOD_NOT_ALLOWED' });
  });

  it('refuses a parameter given twice with different values, accepts exact repeats', async () => {
    const twice = await fetch(`${t.base}/1/users.json?access_token=${admin}&access_token=00000000-0000-4000-8000-000000000000`);
    const r = { status: twice.status, json: (await twice.json()) as Record<string, unknown> };
    expect(r.json).toMatchObject({ code: 400, description: 'EXCEPTION_AMBIGUOUS_PARAMETER', parameter: 'access_token' });
    const alias = await fetch(`${t.base}/1/users.json?access_token=${admin}&OAUTH_TOKEN=${admin}`);
    expect(alias.status).toBe(200);
  });
});

function res(body: unknown): Record<string, unknown> {
  return body as Record<string, unknown>;
}

describe('paths, versions and formats', () => {
  it.each([
    ['/2/users.json', 400, 'EXCEPTION_UNSUPPORTED_VERSION'],
    ['/v1/users.json', 400, 'EXCEPTION_UNSUPPORTED_VERSION'],
    ['/1/users.xml', 400, 'EXCEPTION_UNSUPPORTED_FORMAT'],
    ['/1/nothing.json', 404, 'EXCEPTION_NOT_FOUND'],
    ['/1/users', 404, 'EXCEPTION_NOT_FOUND'],
    ['/nothing', 404, 'EXCEPTION_NOT_FOUND'],
    ['/1/users/%E0%A4%A/show.json', 400, 'EXCEPTION_MALFORMED_REQUEST'],
  ])('%s answers %i %s', async (path, status, description) => {
    const r = await t.get(path, { access_token: admin });
    expect(r.status).toBe(status);
    expect(r.json).toMatchObject({ code: status, description });
  });
});

describe('bad requests get a JSON 4xx and change nothing', () => {
  it('refuses malformed percent-encoding and invalid UTF-8 in the query and the body', async () => {
    for (const q of ['username=%ZZ', 'username=%C3%28', 'username=%']) {
      const r = await fetch(`${t.base}/1/users/login.json?api_key=${apiKey}&${q}&pwd=x`, { method: 'POST' });
      expect(r.status, q).toBe(400);
      expect(await r.json()).toMatchObject({ description: 'EXCEPTION_MALFORMED_REQUEST' });
    }
    const body = await fetch(`${t.base}/1/users/login.json`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `api_key=${apiKey}&username=%FF&pwd=x`,
    });
    expect(body.status).toBe(400);
  });

  it('refuses an unsupported content type with 415', async () => {
    const r = await fetch(`${t.base}/1/users.json`, { method: 'POST', headers: { 'content-type': 'text/xml' }, body: '<x/>' });
    expect(r.status).toBe(415);
    expect(await r.json()).toMatchObject({ code: 415, description: 'EXCEPTION_UNSUPPORTED_MEDIA_TYPE' });
  });

  it('refuses bad JSON and JSON that is not a flat object', async () => {
    for (const body of ['{', '[1,2]', '"x"', '{"username":{"a":1}}']) {
      const r = await fetch(`${t.base}/1/users.json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(r.status, body).toBe(400);
      expect(await r.json()).toMatchObject({ description: 'EXCEPTION_MALFORMED_REQUEST' });
    }
  });

  it('refuses oversized bodies with 413, url-encoded and multipart alike', async () => {
    const big = 'x'.repeat(70 * 1024);
    const form = await t.post('/1/users.json', { access_token: admin, username: 'big', pwd: big, email: 'a@b.co' }, 'form');
    expect(form.status).toBe(413);
    errorShape(form);
    const multi = await t.post('/1/users.json', { access_token: admin, username: 'big', pwd: big, email: 'a@b.co' }, 'multipart');
    expect(multi.status).toBe(413);
    errorShape(multi);
    const json = await t.post('/1/users.json', { access_token: admin, username: 'big', pwd: big, email: 'a@b.co' }, 'json');
    expect(json.status).toBe(413);
  });

  it('refuses a truncated multipart body, a missing boundary, and file parts', async () => {
    const boundary = 'XyZ';
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="api_key"\r\n\r\n${apiKey}\r\n--${boundary}\r\nContent-Disposition: form-data; name="username"\r\n\r\nwireu`;
    const truncated = await rawRequest(
      port,
      `POST /1/users/login.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${part.length}\r\nConnection: close\r\n\r\n${part}`,
    );
    expect(truncated.status).toBe(400);
    expect(JSON.parse(truncated.body)).toMatchObject({ code: 400, description: 'EXCEPTION_MALFORMED_REQUEST' });

    const noBoundary = await fetch(`${t.base}/1/users/login.json`, { method: 'POST', headers: { 'content-type': 'multipart/form-data' }, body: 'x' });
    expect(noBoundary.status).toBe(400);

    const withFile = new FormData();
    withFile.append('api_key', apiKey);
    withFile.append('username', new Blob(['wireuser1']), 'name.txt');
    const file = await fetch(`${t.base}/1/users/login.json`, { method: 'POST', body: withFile });
    expect(file.status).toBe(400);
  });

  it('answers a declared Content-Length larger than the body without hanging', async () => {
    const r = await rawRequest(
      port,
      'POST /1/users/login.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\nConnection: close\r\n\r\napi_key=1',
    );
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(r.status).toBeLessThan(500);
  });

  it('keeps serving after all of the above', async () => {
    const r = await t.post('/1/users/login.json', { api_key: apiKey, username: 'wireuser1', pwd: 'secret1' });
    expect(r.status).toBe(200);
    const count = t.core.db.prepare('SELECT count(*) FROM members').pluck().get();
    expect(count).toBe(2);
  });
});

describe('the listener', () => {
  it('binds 127.0.0.1 unless told otherwise', () => {
    const address = (t.server as unknown as { app: { server: { address(): { address: string } } } }).app.server.address();
    expect(address.address).toBe('127.0.0.1');
  });

  it('reports a port already in use as an error event and a rejected start', async () => {
    const { ApiServer } = await import('../../main/http/server.js');
    const second = new ApiServer(t.core, { port });
    const errors: string[] = [];
    second.on('error', (e) => errors.push((e as NodeJS.ErrnoException).code ?? e.message));
    await expect(second.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(errors).toEqual(['EADDRINUSE']);
    expect(second.listening).toBe(false);
  });

  it('logs each request without its query string (tokens travel there)', async () => {
    const lines: string[] = [];
    const listener = (r: { method: string; path: string; status: number }) => lines.push(`${r.method} ${r.path} ${r.status}`);
    t.server.on('request', listener);
    await t.get('/1/users.json', { access_token: admin });
    t.server.off('request', listener);
    expect(lines).toEqual(['GET /1/users.json 200']);
  });
});

describe('requests that are not HTTP', () => {
  it('answers garbage with a JSON 400 and keeps serving', async () => {
    const r = await rawRequest(port, 'THIS IS NOT HTTP\r\n\r\n');
    expect(r.status).toBe(400);
    expect(JSON.parse(r.body)).toMatchObject({ code: 400, description: 'EXCEPTION_MALFORMED_REQUEST' });
    expect((await t.get('/1/users.json', { access_token: admin })).status).toBe(200);
  });
});

describe('HEAD', () => {
  it('never writes: 405 on add, update, delete and the other writes; GET without a body where GET only reads', async () => {
    const f = await poiFixture();
    try {
      const poi = await f.addPoi({ name: 'Kept' });
      const count = () => f.t.core.db.prepare('SELECT count(*) FROM pois').pluck().get();
      const before = count();
      const head = (path: string, fields: Record<string, string | number>) => f.t.call('HEAD', path, fields);
      for (const [path, fields] of [
        ['/1/pois/delete.json', { oauth_token: f.admin, poi: poi.id as number }],
        ['/1/pois/add.json', { oauth_token: f.admin, lat: 1, lng: 2, name: 'Ghost', categories: 1 }],
        ['/1/pois/update.json', { oauth_token: f.admin, poi: poi.id as number, name: 'Renamed' }],
        ['/1/pois/categories/add.json', { oauth_token: f.admin, desc: 'Ghost' }],
        ['/1/pois/warnings/add.json', { oauth_token: f.member, poi: poi.id as number, type: 'CLOSED' }],
      ] as const) {
        const r = await head(path, fields);
        expect({ path, status: r.status }).toEqual({ path, status: 405 });
      }
      expect(count()).toBe(before);
      expect((await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number })).json).toMatchObject({ name: 'Kept', warnings: { closed: 0 } });
      expect(f.t.core.db.prepare("SELECT count(*) FROM categories WHERE description = 'Ghost'").pluck().get()).toBe(0);
      const read = await head('/1/pois/get.json', { oauth_token: f.admin, poi: poi.id as number });
      expect(read.status).toBe(200);
      expect(read.body).toBe('');
      expect((await head('/1/users/me/show.json', { access_token: f.member })).status).toBe(200);
    } finally {
      await f.t.close();
    }
  });
});
