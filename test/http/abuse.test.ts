import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { addressKey } from '../../main/core/members/abuse.js';
import { argon2Hasher, type PasswordHasher } from '../../main/core/members/passwords.js';
import { openCore } from '../support/core.js';
import { invokeApi, testCore } from '../support/core.js';
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

  it('a successful login gives back its own attempt only: earlier failures still count', async () => {
    const { server, apiKey } = await setup();
    const login = (pwd: string) => server.post('/1/users/login.json', { api_key: apiKey, username: 'victim01', pwd });
    expect((await login('wrong-pwd')).status).toBe(401);
    expect((await login('secret1')).status).toBe(200);
    expect((await login('secret1')).status).toBe(200);
    expect((await login('wrong-pwd')).status).toBe(401);
    expect((await login('wrong-pwd')).status).toBe(401);
    expect((await login('secret1')).status).toBe(429);
  });

  it('counts the username and the e-mail of one member in one bucket', async () => {
    const { server, apiKey } = await setup();
    const login = (username: string) => server.post('/1/users/login.json', { api_key: apiKey, username, pwd: 'wrong-pwd' });
    expect((await login('victim01')).status).toBe(401);
    expect((await login('VICTIM01@example.com')).status).toBe(401);
    expect((await login('victim01@example.com')).status).toBe(401);
    expect((await login('Victim01')).status).toBe(429);
  });
});

describe('guesses sent in parallel', () => {
  /** The real argon2 hasher, counting the passwords it checks. */
  const counted = (): PasswordHasher & { checked: number } => {
    const real = argon2Hasher();
    const hasher: PasswordHasher & { checked: number } = {
      checked: 0,
      hash: real.hash,
      verify: (stored, pwd) => ((hasher.checked += 1), real.verify(stored, pwd)),
      burn: (pwd) => ((hasher.checked += 1), real.burn(pwd)),
    };
    return hasher;
  };

  /** A listener allowing 5 attempts per user and plenty per address, with one member. */
  async function victim() {
    const passwords = counted();
    t = await startTestServer({ limits: { ...limits, loginFailuresPerUser: { points: 5, seconds: 600 }, loginFailuresPerAddress: { points: 1000, seconds: 600 } }, passwords });
    const c = t.core.clients.create({ name: 'Demo' });
    await t.core.members.register(c.client_id, { username: 'victim01', pwd: 'secret1', email: 'v@example.com' });
    passwords.checked = 0;
    const server = t;
    return { passwords, guess: (pwd: string) => server.post('/1/users/login.json', { api_key: c.client_id, username: 'victim01', pwd }) };
  }

  it('check at most the per-user limit of passwords, however many arrive at once', async () => {
    const { passwords, guess } = await victim();
    const guesses = Array.from({ length: 100 }, (_, i) => guess(`wrong${i}`));
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(95);
    expect(passwords.checked).toBe(5);
  });

  it('the right password among 60 parallel guesses is only tried if it is one of the 5 that are checked', async () => {
    const { passwords, guess } = await victim();
    const guesses = Array.from({ length: 60 }, (_, i) => guess(i === 59 ? 'secret1' : `wrong${i}`));
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    expect(passwords.checked).toBe(5);
    expect(statuses.filter((s) => s === 401 || s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(55);
  });

  it('check at most the per-address limit, whatever the usernames', async () => {
    const passwords = counted();
    // 400 connections at once from one address: more than the listener's per-address cap allows.
    t = await startTestServer(
      { limits: { ...limits, loginFailuresPerUser: { points: 5, seconds: 600 }, loginFailuresPerAddress: { points: 50, seconds: 600 } }, passwords },
      { connections: { maxConnectionsPerAddress: 1000 } },
    );
    const c = t.core.clients.create({ name: 'Demo' });
    const server = t;
    const guesses = Array.from({ length: 400 }, (_, i) => server.post('/1/users/login.json', { api_key: c.client_id, username: `nobody${i}x`, pwd: 'whatever' }));
    const statuses = (await Promise.all(guesses)).map((r) => r.status);
    expect(passwords.checked).toBe(50);
    expect(statuses.filter((s) => s === 401)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(350);
  });
});

describe('what a restart keeps', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('the counts live in the database: a restart (or another process on the same file) does not reset them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-abuse-'));
    dirs.push(dir);
    const file = join(dir, 'poi.sqlite');
    const first = openCore({ file, limits });
    const c = first.clients.create({ name: 'Demo' });
    await first.members.register(c.client_id, { username: 'victim01', pwd: 'secret1', email: 'v@example.com' });
    for (let i = 0; i < 3; i++) await expect(invokeApi(first, 'users.login', { apiKey: c.client_id, origin: '10.0.0.1' }, { username: 'victim01', pwd: 'nope' })).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    const beside = openCore({ file, limits });
    await expect(invokeApi(beside, 'users.login', { apiKey: c.client_id, origin: '10.0.0.2' }, { username: 'victim01', pwd: 'secret1' })).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    beside.close();
    first.close();
    const restarted = openCore({ file, limits });
    await expect(invokeApi(restarted, 'users.login', { apiKey: c.client_id, origin: '10.0.0.3' }, { username: 'victim01', pwd: 'secret1' })).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    expect(restarted.db.prepare('SELECT count(*) FROM attempt_counts').pluck().get()).toBeGreaterThan(0);
    // Keys are digests: the usernames and addresses tried are not kept in clear.
    const keys = restarted.db.prepare('SELECT key FROM attempt_counts').pluck().all() as Buffer[];
    for (const key of keys) expect(key.toString('latin1')).not.toMatch(/victim01|10\.0\.0/);
    restarted.close();
  });
});

describe('remote addresses', () => {
  it('count an IPv6 address by its /64 and an IPv4-mapped one as IPv4', async () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).not.toBe(addressKey('192.0.2.8'));
    const core = testCore({ limits: { ...limits, loginFailuresPerAddress: { points: 2, seconds: 600 } } });
    const c = core.clients.create({ name: 'Demo' });
    const login = (address: string, username: string) => invokeApi(core, 'users.login', { apiKey: c.client_id, origin: address }, { username, pwd: 'nope' });
    await expect(login('2001:db8:1:2::1', 'someone01')).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    await expect(login('2001:db8:1:2:ffff:ffff:ffff:ffff', 'someone02')).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    await expect(login('2001:db8:1:2::abcd', 'someone03')).rejects.toMatchObject({ code: 'TOO_MANY_REQUESTS' });
    await expect(login('2001:db8:1:3::1', 'someone04')).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    core.close();
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

  it('sent in parallel, never exceed the per-address limit', async () => {
    const { server, apiKey } = await setup();
    const regs = Array.from({ length: 40 }, (_, i) =>
      server.post('/1/users.json', { api_key: apiKey, username: `parallel${i}x`, pwd: 'secret1', email: `p${i}@example.com` }),
    );
    const statuses = (await Promise.all(regs)).map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(server.core.db.prepare("SELECT count(*) FROM members WHERE username LIKE 'parallel%'").pluck().get()).toBe(3);
  });

  it('are limited per client+username, failures included', async () => {
    const { server, apiKey } = await setup();
    const reg = () => server.post('/1/users.json', { api_key: apiKey, username: 'victim01', pwd: 'secret1', email: 'new@example.com' });
    expect((await reg()).status).toBe(409);
    expect((await reg()).status).toBe(409);
    expect((await reg()).status).toBe(429);
  });
});
