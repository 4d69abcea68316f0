import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/http.js';

let t: TestServer;
let admin: string;
let apiKey: string;
let otherAdmin: string;
let n = 0;

beforeAll(async () => {
  t = await startTestServer();
  const c = t.core.clients.create({ name: 'Demo' });
  admin = c.admin_token;
  apiKey = c.client_id;
  otherAdmin = t.core.clients.create({ name: 'Other' }).admin_token;
});
afterAll(() => t.close());

/** Registers a member and returns its id, token and credentials. */
async function member(extra: Record<string, string> = {}) {
  n++;
  const creds = { username: `person${String(n).padStart(4, '0')}`, pwd: 'secret1', email: `p${n}@example.com` };
  const r = await t.post('/1/users.json', { access_token: admin, ...creds, ...extra });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return { ...creds, id: r.json.id as string, token: (r.json.accreditation as { access_token: string }).access_token };
}

const OK = { code: 200, description: 'OK' };

describe('logout (DELETE /1/users/login.json)', () => {
  it('revokes that token only, at once', async () => {
    const m = await member();
    const second = await t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: m.pwd });
    const secondToken = (second.json.accreditation as { access_token: string }).access_token;
    const out = await t.call('DELETE', '/1/users/login.json', { access_token: m.token }, 'query');
    expect(out.status).toBe(200);
    expect(out.body).toEqual(OK);
    expect((await t.get('/1/users/me/show.json', { access_token: m.token })).json).toMatchObject({
      code: 401,
      description: 'EXCEPTION_INVALID_TOKEN',
    });
    expect((await t.get('/1/users/me/show.json', { access_token: secondToken })).status).toBe(200);
    expect((await t.call('DELETE', '/1/users/login.json', { access_token: m.token }, 'query')).status).toBe(401);
  });
});

describe('list (GET /1/users.json)', () => {
  it('pages the members for the administrator, private fields included', async () => {
    const fresh = await startTestServer();
    try {
      const c = fresh.core.clients.create({ name: 'Paged' });
      for (let i = 0; i < 3; i++) {
        await fresh.post('/1/users.json', { access_token: c.admin_token, username: `pager${i}00`, pwd: 'secret1', email: `x${i}@example.com` });
        fresh.core.clock.advance(1000);
      }
      const page = await fresh.get('/1/users.json', { access_token: c.admin_token, count: 2, page: 1 });
      expect(page.status).toBe(200);
      expect(page.body).toEqual([expect.objectContaining({ name: 'pager200', email: 'x2@example.com', ugroup: [] })]);
      const all = await fresh.get('/1/users.json', { access_token: c.admin_token });
      expect((all.body as unknown[]).length).toBe(3);
      expect((all.body as Array<{ accreditation: { access_token: unknown; visibledevices: unknown } }>)[0]!.accreditation).toMatchObject({
        access_token: null,
        visibledevices: [],
      });
      expect((await fresh.get('/1/users.json', { access_token: c.admin_token, count: 0 })).json).toMatchObject({ code: 400, parameter: 'count' });
      expect((await fresh.get('/1/users.json', { access_token: c.admin_token, count: 1001 })).json).toMatchObject({ code: 400, parameter: 'count' });
      expect((await fresh.get('/1/users.json', { access_token: c.admin_token, page: 'x' })).json).toMatchObject({ code: 400, parameter: 'page' });
      expect((await fresh.get('/1/users.json', { access_token: c.admin_token, count: 1.5 })).json).toMatchObject({ code: 400, parameter: 'count' });
    } finally {
      await fresh.close();
    }
  });

  it('is refused to a member and shows another client nothing of this one', async () => {
    const m = await member();
    expect((await t.get('/1/users.json', { access_token: m.token })).json).toMatchObject({ code: 403, description: 'EXCEPTION_FORBIDDEN' });
    const other = await t.get('/1/users.json', { access_token: otherAdmin });
    expect(other.body).toEqual([]);
  });
});

describe('show (GET /1/users/{id|me}/show.json)', () => {
  it('shows oneself with private fields and the current token expiry, never a token', async () => {
    const m = await member({ birthday: '1990-01-01T00:00:00.000+01:00' });
    const r = await t.get('/1/users/me/show.json', { access_token: m.token });
    expect(r.json).toMatchObject({ id: m.id, name: m.username, email: m.email, profile: { birthday: '1990-01-01T00:00:00.000+01:00' } });
    expect(r.json.accreditation).toMatchObject({ access_token: null, expirationtime: null, client_id: apiKey });
    expect(JSON.stringify(r.body)).not.toContain(m.token);
  });

  it('hides e-mail and birthday of another member from a member, not from the admin', async () => {
    const a = await member();
    const b = await member({ birthday: '1990-01-01T00:00:00.000+01:00' });
    const asMember = await t.get(`/1/users/${b.id}/show.json`, { access_token: a.token });
    expect(asMember.json).toMatchObject({ id: b.id, name: b.username, email: null, email_verified: null, profile: { birthday: null } });
    const asAdmin = await t.post(`/1/users/${b.id}/show.json`, { access_token: admin });
    expect(asAdmin.json).toMatchObject({ id: b.id, email: b.email, email_verified: false });
  });

  it('answers 404 for an unknown member, for another client, and for "me" with an admin token', async () => {
    const m = await member();
    expect((await t.get('/1/users/00000000-0000-4000-8000-000000000000/show.json', { access_token: admin })).status).toBe(404);
    expect((await t.get(`/1/users/${m.id}/show.json`, { access_token: otherAdmin })).json).toMatchObject({
      code: 404,
      description: 'EXCEPTION_NOT_FOUND',
    });
    expect((await t.get('/1/users/me/show.json', { access_token: admin })).status).toBe(404);
  });
});

describe('update (PUT or POST /1/users/{id}.json)', () => {
  it('lets a member change its own password with the old one', async () => {
    const m = await member();
    const r = await t.call('PUT', `/1/users/${m.id}.json`, { access_token: m.token, pwd: 'newpass1', oldpwd: m.pwd }, 'multipart');
    expect(r.body).toEqual(OK);
    expect((await t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: 'newpass1' })).status).toBe(200);
    expect((await t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: m.pwd })).status).toBe(401);
    expect((await t.get('/1/users/me/show.json', { access_token: m.token })).status).toBe(200);
  });

  it('needs oldpwd with pwd, and the right one, even from the admin', async () => {
    const m = await member();
    expect((await t.post(`/1/users/${m.id}.json`, { access_token: admin, pwd: 'newpass1' })).json).toMatchObject({
      code: 400,
      description: 'EXCEPTION_MISSING_PARAMETER',
      parameter: 'oldpwd',
    });
    expect((await t.post(`/1/users/${m.id}.json`, { access_token: admin, pwd: 'newpass1', oldpwd: 'bad' })).json).toMatchObject({
      code: 401,
      parameter: 'oldpwd',
    });
    expect((await t.post(`/1/users/${m.id}.json`, { access_token: admin, pwd: 'short', oldpwd: m.pwd })).json).toMatchObject({
      code: 400,
      parameter: 'pwd',
    });
  });

  it('lets the admin change gender and birthday, and an empty value clear them', async () => {
    const m = await member({ gender: 'male', birthday: '1990-01-01T00:00:00.000+01:00' });
    expect((await t.post(`/1/users/${m.id}.json`, { access_token: admin, gender: 'female' })).body).toEqual(OK);
    expect((await t.get(`/1/users/${m.id}/show.json`, { access_token: admin })).json.profile).toEqual({
      gender: 'FEMALE',
      birthday: '1990-01-01T00:00:00.000+01:00',
    });
    expect((await t.post(`/1/users/${m.id}.json`, { access_token: admin, gender: '', birthday: '' })).body).toEqual(OK);
    expect((await t.get(`/1/users/${m.id}/show.json`, { access_token: admin })).json.profile).toEqual({ gender: 'UNDEFINED', birthday: null });
    expect((await t.post(`/1/users/${m.id}.json`, { access_token: admin, birthday: 'tomorrow' })).json).toMatchObject({
      code: 400,
      parameter: 'birthday',
    });
  });

  it('refuses a member updating someone else, and another client admin', async () => {
    const a = await member();
    const b = await member();
    expect((await t.post(`/1/users/${b.id}.json`, { access_token: a.token, gender: 'male' })).json).toMatchObject({
      code: 403,
      description: 'EXCEPTION_FORBIDDEN',
    });
    expect((await t.post(`/1/users/${b.id}.json`, { access_token: otherAdmin, gender: 'male' })).status).toBe(404);
    expect((await t.get(`/1/users/${b.id}/show.json`, { access_token: admin })).json.profile).toMatchObject({ gender: 'UNDEFINED' });
  });
});

describe('delete (DELETE /1/users/{id}.json)', () => {
  it('deletes the member for the admin and revokes its tokens', async () => {
    const m = await member();
    expect((await t.call('DELETE', `/1/users/${m.id}.json`, { access_token: m.token }, 'query')).status).toBe(403);
    expect((await t.call('DELETE', `/1/users/${m.id}.json`, { access_token: otherAdmin }, 'query')).status).toBe(404);
    const r = await t.call('DELETE', `/1/users/${m.id}.json`, { access_token: admin }, 'query');
    expect(r.body).toEqual(OK);
    expect((await t.get('/1/users/me/show.json', { access_token: m.token })).status).toBe(401);
    expect((await t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: m.pwd })).status).toBe(401);
    expect((await t.call('DELETE', `/1/users/${m.id}.json`, { access_token: admin }, 'query')).status).toBe(404);
  });
});
