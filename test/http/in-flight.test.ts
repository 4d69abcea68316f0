import { afterEach, describe, expect, it } from 'vitest';
import type { Geocoder } from '../../main/core/geocode/geocoder.js';
import { argon2Hasher, type PasswordHasher } from '../../main/core/members/passwords.js';
import { startTestServer, type TestServer } from '../support/http.js';

/**
 * Requests that are in flight (a password being checked, a position being geocoded) while
 * another request changes what they rely on. Real parallel requests over a real listener.
 */
let t: TestServer | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const generous = {
  loginFailuresPerUser: { points: 1000, seconds: 600 },
  loginFailuresPerAddress: { points: 1000, seconds: 600 },
};

/** An offline geocoder that takes its time, as an online one would: a window for a race. */
const slowGeocoder = (ms: number): Geocoder => ({
  reverse: () => new Promise((resolve) => setTimeout(() => resolve({ city: 'Slowtown' }), ms)),
});

/** The real argon2 hasher, with checks that take at least `ms`: a window for a race. */
const slowChecks = (ms: number): PasswordHasher => {
  const real = argon2Hasher();
  const late = <T>(work: Promise<T>) => Promise.all([work, new Promise((resolve) => setTimeout(resolve, ms))]).then(([value]) => value);
  return { hash: real.hash, verify: (stored, pwd) => late(real.verify(stored, pwd)), burn: (pwd) => late(real.burn(pwd)) };
};

async function withMember(server: TestServer) {
  const c = server.core.clients.create({ name: 'Demo' });
  const r = await server.post('/1/users.json', { access_token: c.admin_token, username: 'alice01', pwd: 'secret1', email: 'alice@example.com' });
  expect(r.status).toBe(200);
  const member = r.json as { id: string; accreditation: { access_token: string } };
  return { apiKey: c.client_id, admin: c.admin_token, memberId: member.id, memberToken: member.accreditation.access_token };
}

describe('a password change while logins are in flight', () => {
  it('leaves no token issued on the old password alive once the change is answered', async () => {
    t = await startTestServer({ limits: generous });
    const server = t;
    const { apiKey, admin, memberId } = await withMember(server);
    const change = server.call('PUT', `/1/users/${memberId}.json`, { access_token: admin, pwd: 'newpass1', oldpwd: 'secret1' });
    const logins = Array.from({ length: 60 }, () => server.post('/1/users/login.json', { api_key: apiKey, username: 'alice01', pwd: 'secret1' }));
    const replies = await Promise.all(logins);
    expect((await change).json).toEqual({ code: 200, description: 'OK' });
    const statuses = replies.map((r) => r.status);
    expect(statuses.every((s) => s === 200 || s === 401), `statuses: ${statuses.join(',')}`).toBe(true);
    const issued = replies.filter((r) => r.status === 200).map((r) => (r.json as { accreditation: { access_token: string } }).accreditation.access_token);
    const alive: string[] = [];
    for (const token of issued) {
      if ((await server.get('/1/users/me/show.json', { access_token: token })).status === 200) alive.push(token);
    }
    expect(alive, `${alive.length} of ${issued.length} tokens issued on the old password still work`).toEqual([]);
    expect((await server.post('/1/users/login.json', { api_key: apiKey, username: 'alice01', pwd: 'newpass1' })).status).toBe(200);
  });
});

describe('a member deleted while its request is in flight', () => {
  it('a login being checked is answered as if the member had been deleted first: 401, not 500', async () => {
    t = await startTestServer({ limits: generous, passwords: slowChecks(200) });
    const server = t;
    const { apiKey, admin, memberId } = await withMember(server);
    const logins = Array.from({ length: 8 }, () => server.post('/1/users/login.json', { api_key: apiKey, username: 'alice01', pwd: 'secret1' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const removed = await server.call('DELETE', `/1/users/${memberId}.json`, { access_token: admin });
    expect(removed.json).toEqual({ code: 200, description: 'OK' });
    const replies = await Promise.all(logins);
    for (const r of replies) expect(r.json).toMatchObject({ code: 401, description: 'EXCEPTION_INVALID_CREDENTIALS' });
    expect(server.core.db.prepare('SELECT count(*) FROM tokens WHERE member_id IS NOT NULL').pluck().get()).toBe(0);
  });

  it('a POI being geocoded for the member is refused as if its token had been revoked first, and not saved', async () => {
    t = await startTestServer({ geocoder: slowGeocoder(150) });
    const server = t;
    const { admin, memberId, memberToken } = await withMember(server);
    const adding = server.get('/1/pois/add.json', { oauth_token: memberToken, lat: 40.4, lng: -3.7, name: 'Mine', categories: 1, geocode: true });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect((await server.call('DELETE', `/1/users/${memberId}.json`, { access_token: admin })).status).toBe(200);
    expect((await adding).json).toMatchObject({ code: 401, description: 'EXCEPTION_INVALID_TOKEN' });
    expect(server.core.db.prepare('SELECT count(*) FROM pois').pluck().get()).toBe(0);
  });

  it('an administrator token rotated while an update is being geocoded refuses it, and nothing changes', async () => {
    t = await startTestServer({ geocoder: slowGeocoder(150) });
    const server = t;
    const { apiKey, admin } = await withMember(server);
    const poi = (await server.get('/1/pois/add.json', { oauth_token: admin, lat: 40.4, lng: -3.7, name: 'Before', categories: 1, geocode: false })).json['id'] as number;
    const updating = server.get('/1/pois/update.json', { oauth_token: admin, poi, name: 'After', lat: 41, lng: -3, geocode: true });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const fresh = server.core.clients.rotateAdminToken(apiKey);
    expect((await updating).json).toMatchObject({ code: 401, description: 'EXCEPTION_INVALID_TOKEN' });
    expect((await server.get('/1/pois/get.json', { oauth_token: fresh, poi })).json).toMatchObject({ name: 'Before', latitude: 40.4 });
  });

  it('a member token revoked while its password change is being hashed refuses the change', async () => {
    t = await startTestServer({ passwords: slowChecks(200) });
    const server = t;
    const { memberId, memberToken } = await withMember(server);
    const changing = server.call('PUT', `/1/users/${memberId}.json`, { access_token: memberToken, pwd: 'newpass1', oldpwd: 'secret1' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await server.call('DELETE', '/1/users/login.json', { access_token: memberToken })).status).toBe(200);
    expect((await changing).json).toMatchObject({ code: 401, description: 'EXCEPTION_INVALID_TOKEN' });
    expect(await server.core.members.authenticate(server.core.clients.list()[0]!.client_id, 'alice01', 'secret1')).toBeTruthy();
  });

  it('an administrator token rotated while a POI is being geocoded refuses that write too', async () => {
    t = await startTestServer({ geocoder: slowGeocoder(150) });
    const server = t;
    const { apiKey, admin } = await withMember(server);
    const adding = server.get('/1/pois/add.json', { oauth_token: admin, lat: 40.4, lng: -3.7, name: 'Mine', categories: 1, geocode: true });
    await new Promise((resolve) => setTimeout(resolve, 30));
    server.core.clients.rotateAdminToken(apiKey);
    expect((await adding).json).toMatchObject({ code: 401, description: 'EXCEPTION_INVALID_TOKEN' });
    expect(server.core.db.prepare('SELECT count(*) FROM pois').pluck().get()).toBe(0);
  });
});

describe('a client that hangs up before its answer', () => {
  it('is logged as 499 (client closed request), not as answered, on both request paths', async () => {
    t = await startTestServer({ geocoder: slowGeocoder(150) });
    const server = t;
    const admin = server.core.clients.create({ name: 'Demo' }).admin_token;
    const logged: string[] = [];
    server.server.on('request', (r) => logged.push(`${r.method} ${r.path} ${r.status}`));
    const add = { oauth_token: admin, lat: '40.4', lng: '-3.7', name: 'Left', categories: '1', geocode: 'true' };
    // A GET without a body is answered before Fastify; a POST goes through it.
    for (const method of ['GET', 'POST']) {
      const hangUp = new AbortController();
      const query = method === 'GET' ? `?${new URLSearchParams(add).toString()}` : '';
      const sent = fetch(`${server.base}/1/pois/add.json${query}`, {
        method,
        signal: hangUp.signal,
        ...(method === 'POST' ? { body: new URLSearchParams(add) } : {}),
      }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 40));
      hangUp.abort();
      expect(await sent).toBeInstanceOf(Error);
    }
    // What they asked is done all the same, as a write that arrived whole must be; each is
    // logged once its answer would have gone out.
    const saved = (): unknown => server.core.db.prepare('SELECT count(*) FROM pois').pluck().get();
    for (let waited = 0; (saved() !== 2 || logged.length < 2) && waited < 5000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(saved()).toBe(2);
    expect(logged.sort()).toEqual(['GET /1/pois/add.json 499', 'POST /1/pois/add.json 499']);
  });
});
