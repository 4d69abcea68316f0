import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http.js';

let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const limits = {
  loginFailuresPerUser: { points: 3, seconds: 600 },
  loginFailuresPerAddress: { points: 5, seconds: 600 },
  registrationsPerUser: { points: 2, seconds: 600 },
  registrationsPerAddress: { points: 3, seconds: 600 },
};

async function setup() {
  t = await startTestServer({ limits });
  const c = t.core.clients.create({ name: 'Demo', implicitFlow: true });
  for (const username of ['victim01', 'bystander1']) {
    const r = await t.post('/1/users.json', { access_token: c.admin_token, username, pwd: 'secret1', email: `${username}@example.com` });
    expect(r.status).toBe(200);
  }
  return { server: t, apiKey: c.client_id, admin: c.admin_token };
}

const tokenCount = (server: TestServer) => server.core.db.prepare('SELECT count(*) FROM tokens').pluck().get();

describe('failed logins', () => {
  it('are limited per client+username: then even the right password gets 429, and no token', async () => {
    const { server, apiKey } = await setup();
    const login = (pwd: string) => server.post('/1/users/login.json', { api_key: apiKey, username: 'victim01', pwd });
    for (let i = 0; i < 3; i++) expect((await login('wrong-pwd')).status).toBe(401);
    const before = tokenCount(server);
    const blocked = await login('secret1');
    expect(blocked.status).toBe(429);
    expect(blocked.json).toMatchObject({ code: 429, description: 'EXCEPTION_TOO_MANY_REQUESTS' });
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.json.retry_after).toBe(Number(blocked.headers.get('retry-after')));
    expect(tokenCount(server)).toBe(before);
    // The limit is per username (and per e-mail form of it is a separate key, but counted the same way).
    expect((await server.post('/1/users/login.json', { api_key: apiKey, username: 'bystander1', pwd: 'secret1' })).status).toBe(200);
  });

  it('are limited per remote address across usernames', async () => {
    const { server, apiKey } = await setup();
    for (let i = 0; i < 5; i++) {
      expect((await server.post('/1/users/login.json', { api_key: apiKey, username: `guess${i}00`, pwd: 'x' })).status).toBe(401);
    }
    const r = await server.post('/1/users/login.json', { api_key: apiKey, username: 'bystander1', pwd: 'secret1' });
    expect(r.status).toBe(429);
  });

  it('a successful login clears the count of that username', async () => {
    const { server, apiKey } = await setup();
    const login = (pwd: string) => server.post('/1/users/login.json', { api_key: apiKey, username: 'victim01', pwd });
    expect((await login('wrong-pwd')).status).toBe(401);
    expect((await login('wrong-pwd')).status).toBe(401);
    expect((await login('secret1')).status).toBe(200);
    expect((await login('wrong-pwd')).status).toBe(401);
    expect((await login('wrong-pwd')).status).toBe(401);
    expect((await login('secret1')).status).toBe(200);
  });
});

describe('registrations through api_key', () => {
  it('are limited per remote address; the administrator is not limited', async () => {
    const { server, apiKey, admin } = await setup();
    const reg = (username: string, cred: Record<string, string>) =>
      server.post('/1/users.json', { ...cred, username, pwd: 'secret1', email: `${username}@example.com` });
    for (let i = 0; i < 3; i++) expect((await reg(`implicit${i}`, { api_key: apiKey })).status).toBe(200);
    const blocked = await reg('implicit9', { api_key: apiKey });
    expect(blocked.status).toBe(429);
    expect(server.core.db.prepare("SELECT count(*) FROM members WHERE username = 'implicit9'").pluck().get()).toBe(0);
    for (let i = 0; i < 5; i++) expect((await reg(`byadmin${i}`, { access_token: admin })).status).toBe(200);
  });

  it('are limited per client+username, failures included', async () => {
    const { server, apiKey } = await setup();
    const reg = () => server.post('/1/users.json', { api_key: apiKey, username: 'victim01', pwd: 'secret1', email: 'new@example.com' });
    expect((await reg()).status).toBe(409);
    expect((await reg()).status).toBe(409);
    expect((await reg()).status).toBe(429);
  });
});
