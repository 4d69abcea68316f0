import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatIso } from '../../shared/time.js';
import { MAX_EXPIRES_IN_SECONDS } from '../../shared/schemas/members.js';
import { startTestServer, type Encoding, type TestServer } from '../support/http.js';

let t: TestServer;
let admin: string;
let apiKey: string;
let implicitKey: string;
let n = 0;
/** A fresh, valid member each time, so cases do not collide on uniqueness. */
const fresh = () => {
  n++;
  return { username: `member${String(n).padStart(4, '0')}`, pwd: 'secret1', email: `m${n}@example.com` };
};

beforeAll(async () => {
  t = await startTestServer();
  const c = t.core.clients.create({ name: 'Demo' });
  admin = c.admin_token;
  apiKey = c.client_id;
  implicitKey = t.core.clients.create({ name: 'Open', implicitFlow: true }).client_id;
});
afterAll(() => t.close());

const register = (fields: Record<string, string | number>, encoding: Encoding = 'form') =>
  t.post('/1/users.json', { access_token: admin, ...fields }, encoding);

describe('register (POST /1/users.json)', () => {
  it.each<Encoding>(['form', 'multipart', 'query', 'json'])('accepts a %s request and replies the full user (docs/api-spec.md#the-user-reply)', async (encoding) => {
    const m = fresh();
    const r = await register({ ...m, gender: 'female', birthday: '1997-07-16T10:30:15.342+03:00' }, encoding);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: m.username,
      email: m.email,
      email_verified: false,
      register: formatIso(t.core.clock.now()),
      provider: null,
      profile: { birthday: '1997-07-16T10:30:15.342+03:00', gender: 'FEMALE' },
      ugroup: [],
      accreditation: {
        expirationtime: null,
        client_id: apiKey,
        access_token: expect.stringMatching(/^[0-9a-f-]{36}$/),
        refresh_token: null,
        visibledevices: [],
      },
    });
  });

  it('never returns the password', async () => {
    const m = fresh();
    const r = await register(m);
    expect(JSON.stringify(r.body)).not.toContain(m.pwd);
  });

  it('registers with only the api_key of a client that allows Implicit Flow', async () => {
    const r = await t.post('/1/users.json', { api_key: implicitKey, ...fresh() }, 'multipart');
    expect(r.status).toBe(200);
    expect((r.json.accreditation as { client_id: string }).client_id).toBe(implicitKey);
  });

  it('refuses the api_key of a client without Implicit Flow', async () => {
    const r = await t.post('/1/users.json', { api_key: apiKey, ...fresh() });
    expect(r.status).toBe(403);
    expect(r.json).toMatchObject({ code: 403, description: 'EXCEPTION_IMPLICIT_FLOW_DISABLED' });
  });

  it('refuses a member token, an unknown api_key, and no credential at all', async () => {
    const member = await register(fresh());
    const memberToken = (member.json.accreditation as { access_token: string }).access_token;
    expect((await t.post('/1/users.json', { access_token: memberToken, ...fresh() })).json).toMatchObject({
      code: 403,
      description: 'EXCEPTION_FORBIDDEN',
    });
    expect((await t.post('/1/users.json', { api_key: '00000000-0000-4000-8000-000000000000', ...fresh() })).json).toMatchObject({
      code: 401,
      description: 'EXCEPTION_INVALID_API_KEY',
    });
    expect((await t.post('/1/users.json', fresh())).json).toMatchObject({ code: 401, description: 'EXCEPTION_TOKEN_REQUIRED' });
  });

  it('refuses an administrator token given with another client api_key', async () => {
    const r = await t.post('/1/users.json', { access_token: admin, api_key: implicitKey, ...fresh() });
    expect(r.json).toMatchObject({ code: 401, description: 'EXCEPTION_INVALID_API_KEY' });
  });

  it('answers 409 EXCEPTION_ALREADY_EXISTS for a taken username or e-mail, in any case', async () => {
    const m = fresh();
    expect((await register(m)).status).toBe(200);
    const sameName = await register({ ...fresh(), username: m.username.toUpperCase() });
    expect(sameName.status).toBe(409);
    expect(sameName.json).toMatchObject({ code: 409, description: 'EXCEPTION_ALREADY_EXISTS', parameter: 'username' });
    const sameMail = await register({ ...fresh(), email: m.email.toUpperCase() });
    expect(sameMail.json).toMatchObject({ code: 409, description: 'EXCEPTION_ALREADY_EXISTS', parameter: 'email' });
  });
});

/** Each bound of docs/api-spec.md#register-a-member: at the limit is accepted, just past it is refused, naming the field. */
describe('register bounds', () => {
  const ok = async (fields: Record<string, string | number>) => {
    const r = await register({ ...fresh(), ...fields });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.json;
  };
  const refused = async (fields: Record<string, string | number>, parameter: string, status = 400) => {
    const r = await register({ ...fresh(), ...fields });
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(r.json).toMatchObject({ code: status, parameter });
    expect(r.json.description).toMatch(/^EXCEPTION_/);
  };

  it('username: 6 to 40 letters and digits', async () => {
    await ok({ username: 'abc123' });
    await ok({ username: 'A'.repeat(36) + '1234' });
    await refused({ username: 'abc12' }, 'username');
    await refused({ username: 'A'.repeat(41) }, 'username');
    await refused({ username: 'abc_123' }, 'username');
    await refused({ username: 'abc 123' }, 'username');
    await refused({ username: 'émile1' }, 'username');
    await refused({ username: '' }, 'username');
  });

  it('pwd: 6 to 40 characters, counted as characters (not UTF-16 units)', async () => {
    await ok({ pwd: '123456' });
    await ok({ pwd: 'p'.repeat(40) });
    await ok({ pwd: '😀'.repeat(40) });
    await refused({ pwd: '12345' }, 'pwd');
    await refused({ pwd: 'p'.repeat(41) }, 'pwd');
    await refused({ pwd: '😀'.repeat(41) }, 'pwd');
  });

  it('email: well-formed and shorter than 255 characters', async () => {
    const local = (len: number) => `${'a'.repeat(64)}@${'b'.repeat(len - 64 - 1 - 4)}.com`;
    expect(local(254)).toHaveLength(254);
    await ok({ email: local(254).replace(/^a{10}/, 'x'.repeat(10)) });
    await refused({ email: local(255) }, 'email');
    await refused({ email: 'not-an-email' }, 'email');
    await refused({ email: 'a@b' }, 'email');
    await refused({ email: '' }, 'email');
  });

  it('gender: male or female in any case, replied upper-case, UNDEFINED by default', async () => {
    expect(((await ok({ gender: 'male' })).profile as { gender: string }).gender).toBe('MALE');
    expect(((await ok({ gender: 'FeMaLe' })).profile as { gender: string }).gender).toBe('FEMALE');
    expect(((await ok({})).profile as { gender: string }).gender).toBe('UNDEFINED');
    expect(((await ok({ gender: '' })).profile as { gender: string }).gender).toBe('UNDEFINED');
    await refused({ gender: 'other' }, 'gender');
  });

  it('birthday: ISO 8601 with an offset, with or without its colon', async () => {
    expect(((await ok({ birthday: '1997-07-16T10:30:15.342+03:00' })).profile as { birthday: string }).birthday).toBe(
      '1997-07-16T10:30:15.342+03:00',
    );
    expect(((await ok({ birthday: '1970-01-01T00:00:00.000+0000' })).profile as { birthday: string }).birthday).toBe(
      '1970-01-01T00:00:00.000+00:00',
    );
    expect(((await ok({ birthday: '2000-02-29T00:00:00-0530' })).profile as { birthday: string }).birthday).toBe(
      '2000-02-29T00:00:00.000-05:30',
    );
    await refused({ birthday: '1997-07-16T10:30:15' }, 'birthday');
    await refused({ birthday: '1997-07-16' }, 'birthday');
    await refused({ birthday: '1997-02-30T10:30:15+03:00' }, 'birthday');
    await refused({ birthday: 'yesterday' }, 'birthday');
  });

  it('expiresin: a positive number of seconds, permanent when omitted', async () => {
    const now = t.core.clock.now();
    expect(((await ok({})).accreditation as { expirationtime: unknown }).expirationtime).toBeNull();
    expect(((await ok({ expiresin: 1 })).accreditation as { expirationtime: string }).expirationtime).toBe(formatIso(now + 1000));
    expect(((await ok({ expiresIn: '1.0E3' })).accreditation as { expirationtime: string }).expirationtime).toBe(
      formatIso(now + 1_000_000),
    );
    await ok({ expiresin: MAX_EXPIRES_IN_SECONDS });
    await refused({ expiresin: MAX_EXPIRES_IN_SECONDS + 1 }, 'expiresin');
    await refused({ expiresin: 0 }, 'expiresin');
    await refused({ expiresin: -5 }, 'expiresin');
    await refused({ expiresin: 'soon' }, 'expiresin');
  });

  it('reports a missing required field as EXCEPTION_MISSING_PARAMETER', async () => {
    for (const field of ['username', 'pwd', 'email'] as const) {
      const m: Record<string, string> = fresh();
      delete m[field];
      const r = await register(m);
      expect(r.json).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: field });
    }
  });
});

describe('login (POST /1/users/login.json)', () => {
  it('logs in by username and by e-mail, each time with a new token', async () => {
    const m = fresh();
    const reg = await register(m);
    const byName = await t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: m.pwd }, 'multipart');
    const byMail = await t.post('/1/users/login.json', { api_key: apiKey, username: m.email.toUpperCase(), pwd: m.pwd });
    for (const r of [byName, byMail]) {
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ id: reg.json.id, name: m.username, provider: null, ugroup: [] });
      expect(r.json.accreditation).toMatchObject({ expirationtime: null, client_id: apiKey, refresh_token: null, visibledevices: [] });
    }
    const tokens = [reg, byName, byMail].map((r) => (r.json.accreditation as { access_token: string }).access_token);
    expect(new Set(tokens).size).toBe(3);
  });

  it('gives a wrong password and an unknown user the same error', async () => {
    const m = fresh();
    await register(m);
    const wrong = await t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: 'wrong-password' });
    const unknown = await t.post('/1/users/login.json', { api_key: apiKey, username: 'nobody0000', pwd: 'wrong-password' });
    expect(wrong.status).toBe(401);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.json).toEqual({ code: 401, description: 'EXCEPTION_INVALID_CREDENTIALS', message: 'unknown member or wrong password' });
  });

  it('needs a valid api_key, and members of one client cannot log in to another', async () => {
    const m = fresh();
    await register(m);
    expect((await t.post('/1/users/login.json', { username: m.username, pwd: m.pwd })).json).toMatchObject({
      code: 400,
      description: 'EXCEPTION_MISSING_PARAMETER',
      parameter: 'api_key',
    });
    expect((await t.post('/1/users/login.json', { api_key: 'nope', username: m.username, pwd: m.pwd })).json).toMatchObject({
      code: 401,
      description: 'EXCEPTION_INVALID_API_KEY',
    });
    expect((await t.post('/1/users/login.json', { api_key: implicitKey, username: m.username, pwd: m.pwd })).status).toBe(401);
  });

  it('issues a token that expires after expiresin seconds', async () => {
    const m = fresh();
    await register(m);
    const r = await t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: m.pwd, expiresin: 60 });
    const acc = r.json.accreditation as { access_token: string; expirationtime: string };
    expect(acc.expirationtime).toBe(formatIso(t.core.clock.now() + 60_000));
    expect((await t.get('/1/users/me/show.json', { access_token: acc.access_token })).status).toBe(200);
    t.core.clock.advance(60_000);
    const late = await t.get('/1/users/me/show.json', { access_token: acc.access_token });
    expect(late.json).toMatchObject({ code: 401, description: 'EXCEPTION_TOKEN_EXPIRED' });
  });

  it('checks expiresin bounds at login too', async () => {
    const m = fresh();
    await register(m);
    const login = (expiresin: number | string) => t.post('/1/users/login.json', { api_key: apiKey, username: m.username, pwd: m.pwd, expiresin });
    expect((await login(MAX_EXPIRES_IN_SECONDS)).status).toBe(200);
    expect((await login(MAX_EXPIRES_IN_SECONDS + 1)).json).toMatchObject({ code: 400, parameter: 'expiresin' });
    expect((await login(0)).json).toMatchObject({ code: 400, parameter: 'expiresin' });
    expect((await login('1e-3')).status).toBe(200);
  });

  it('refuses an empty username or pwd, and over-long ones, without checking a hash', async () => {
    const base = { api_key: apiKey, username: 'member0001', pwd: 'secret1' };
    expect((await t.post('/1/users/login.json', { ...base, username: '' })).json).toMatchObject({ code: 400, parameter: 'username' });
    expect((await t.post('/1/users/login.json', { ...base, pwd: '' })).json).toMatchObject({ code: 400, parameter: 'pwd' });
    expect((await t.post('/1/users/login.json', { ...base, pwd: 'x'.repeat(301) })).json).toMatchObject({ code: 400, parameter: 'pwd' });
    const { pwd: _pwd, ...noPwd } = base;
    expect((await t.post('/1/users/login.json', noPwd)).json).toMatchObject({ code: 400, description: 'EXCEPTION_MISSING_PARAMETER', parameter: 'pwd' });
  });
});
