import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSPECTOR_BODY_BYTES, INSPECTOR_SHOWN_DEPTH, MASK, SECRET_WORDS, TOO_DEEP } from '../../shared/inspector.js';
import { Exchange } from '../../main/http/inspector/capture.js';
import { curlCommand, shellWord } from '../../main/http/inspector/curl.js';
import { Inspector } from '../../main/http/inspector/inspector.js';
import { ListenerControl } from '../../main/http/listener-control.js';
import { testCore } from '../support/core.js';
import { freePort } from '../support/free-port.js';
import { RequestRing } from '../../main/http/inspector/ring.js';
import { startTestServer, type TestServer } from '../support/http.js';

const run = promisify(execFile);

/** An exchange as the listener keeps one, without a listener. */
const exchange = (url: string, headers: Record<string, string> = {}, reply = ''): Exchange => {
  const e = new Exchange(Date.now(), 'http', '127.0.0.1', 'GET', url, headers);
  if (reply) e.keepReply(reply, { 'content-type': 'application/json' });
  return e;
};

describe('the ring', () => {
  it('keeps at most its count, dropping the oldest', () => {
    const ring = new RequestRing({ maxEntries: 3 });
    for (let i = 0; i < 5; i++) ring.add(exchange(`/1/pois/get.json?poi=${i}`));
    expect(ring.size).toBe(3);
    expect(ring.since(0).map((e) => e.url)).toEqual(['/1/pois/get.json?poi=4', '/1/pois/get.json?poi=3', '/1/pois/get.json?poi=2']);
    expect(ring.get(2)).toBeUndefined();
    expect(ring.get(3)?.url).toBe('/1/pois/get.json?poi=2');
  });

  it('keeps at most its bytes, dropping the oldest, and counts what it holds', () => {
    const ring = new RequestRing({ maxBytes: 10_000 });
    for (let i = 0; i < 10; i++) ring.add(exchange(`/1/pois/get.json?poi=${i}`, {}, 'x'.repeat(3000)));
    expect(ring.size).toBe(3);
    expect(ring.usedBytes).toBeLessThanOrEqual(10_000);
    expect(ring.since(0).map((e) => e.id)).toEqual([10, 9, 8]);
  });

  it('cuts a long reply at INSPECTOR_BODY_BYTES and says so', () => {
    const e = exchange('/1/pois/get.json', {}, `{"name":"${'a'.repeat(INSPECTOR_BODY_BYTES * 2)}"}`);
    expect(e.reply?.length).toBe(INSPECTOR_BODY_BYTES);
    expect(e.detail().replyBody).toMatchObject({ truncated: true });
  });

  it('wakes a follower within a second of a request, and answers an empty list when nothing comes', async () => {
    const ring = new RequestRing();
    ring.add(exchange('/1/pois/get.json?poi=1'));
    expect((await ring.follow(0)).entries.map((e) => e.id)).toEqual([1]);
    const started = performance.now();
    const waiting = ring.follow(1);
    setTimeout(() => ring.add(exchange('/1/pois/get.json?poi=2')), 50);
    const feed = await waiting;
    expect(feed.entries.map((e) => e.id)).toEqual([2]);
    expect(performance.now() - started).toBeLessThan(1000);
    expect((await ring.follow(2, 30)).entries).toEqual([]);
  });
});

describe('the listener control', () => {
  it('answers a held follow when it stops, so that a closing console does not wait 20 s for it', async () => {
    const core = testCore();
    const control = new ListenerControl(core);
    try {
      await control.configure({ enabled: true, port: await freePort(), scope: 'local' });
      const held = control.inspector().follow(0);
      const started = performance.now();
      await control.stop();
      expect(await held).toMatchObject({ entries: [] });
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await control.stop();
      core.close();
    }
  });
});

/** A name the API or HTTP would carry a secret under, in any case and spelling. */
const secretName = fc
  .tuple(fc.constantFrom(...SECRET_WORDS, 'access_token', 'oauth_token', 'admin_token', 'oldpwd', 'x-api-key', 'proxy-authorization'), fc.constantFrom('', 'new_', 'X-'), fc.boolean())
  .map(([word, prefix, upper]) => (upper ? `${prefix}${word}`.toUpperCase() : `${prefix}${word}`));
/** A secret's value: long enough not to be found by chance in the rest of the page. */
const secretValue = fc.string({ minLength: 12, maxLength: 40, unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-.~'.split('')) }).map((s) => `S3cr${s}`);

describe('the ring under a hostile peer', () => {
  it('holds no dropped entry, and counts bodies as kept, not as announced', () => {
    const ring = new RequestRing({ maxEntries: 3, maxBytes: 200_000 });
    for (let i = 0; i < 5; i++) {
      // Sent chunked: no Content-Length, which the ring read as 0 before.
      const e = exchange(`/1/pois/add.json?i=${i}`, { 'transfer-encoding': 'chunked' });
      e.keepBody({ text: `[${'{},'.repeat(20_000)}{}]` });
      ring.add(e);
    }
    expect(ring.size).toBe(3);
    // Before: the dropped entries stayed in the array until it was compacted (127 kept, 499 referenced in a review).
    expect((Reflect.get(ring, 'entries') as unknown[]).filter((e) => e !== undefined)).toHaveLength(3);
    expect(ring.usedBytes).toBeGreaterThanOrEqual(3 * 60_000);
    // Two such bodies exceed this ring's bytes: the oldest go.
    const small = new RequestRing({ maxBytes: 100_000 });
    for (let i = 0; i < 4; i++) {
      const e = exchange(`/1/pois/add.json?i=${i}`, { 'transfer-encoding': 'chunked' });
      e.keepBody({ text: `[${'{},'.repeat(20_000)}{}]` });
      small.add(e);
    }
    expect(small.size).toBe(1);
    expect(small.usedBytes).toBeLessThanOrEqual(100_000);
  });

  it('shows, copies and saves a body nested 30,000 deep, cut at the depth it shows', () => {
    const depth = 30_000;
    const e = exchange('/1/pois/add.json', { 'content-type': 'application/json' });
    e.keepBody({ text: `${'['.repeat(depth)}${']'.repeat(depth)}` });
    const ring = new RequestRing();
    ring.add(e);
    // Before: Maximum call stack size exceeded in detail, curl and save.
    const shown = e.detail().requestBody?.text ?? '';
    expect(shown).toContain(TOO_DEEP);
    expect(shown.split('[').length - 1).toBe(INSPECTOR_SHOWN_DEPTH);
    expect(curlCommand(e, 'http://127.0.0.1:1', false)).toContain(TOO_DEEP);
    // With secrets, the body as it came.
    expect(curlCommand(e, 'http://127.0.0.1:1', true).length).toBeGreaterThan(2 * depth);
  });
});

describe('masking', () => {
  it('masks every secret name in the query, a form body, a JSON body, the headers and the reply', () => {
    fc.assert(
      fc.property(secretName, secretValue, (name, value) => {
        const url = `/1/users/login.json?${encodeURIComponent(name)}=${encodeURIComponent(value)}&username=annann`;
        const headers = { [name.toLowerCase()]: `Bearer ${value}`, host: '127.0.0.1', referer: `http://localhost:5173/app?${encodeURIComponent(name)}=${encodeURIComponent(value)}` };
        // A list of strings before the secret once led the masking of text astray.
        const reply = `{"tags":["a",":"],"${name}":"${value}","accreditation":{"${name}":"${value}"},"username":"ann"}`;
        const form = exchange(url, headers, reply);
        form.keepBody({ form: 'urlencoded', entries: [[name, value], ['username', 'annann']] });
        const json = exchange(url, headers, reply);
        json.keepBody({ text: JSON.stringify({ nested: { [name]: value }, [name]: value, list: [{ [name]: value }] }) });
        for (const e of [form, json]) {
          const shown = JSON.stringify(e.detail());
          if (shown.includes(value)) throw new Error(`${name}'s value shown in ${shown}`);
          expect(shown).toContain(MASK);
          expect(shown).toContain('ann');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('curl quoting', () => {
  it('passes any text to the command as one word, quotes, newlines and $ included', async () => {
    const texts = fc.sample(fc.string({ unit: fc.oneof(fc.constantFrom("'", '"', '\n', '$', '`', '\\', '$(id)', ' ', '!', '*'), fc.string({ maxLength: 1 })) }), 60);
    texts.push(`it's "a" $HOME\n\`id\` \\ $(echo no)`);
    // The shell's own reading of the words, each ended by a NUL.
    const { stdout } = await run('sh', ['-c', `printf '%s\\0' ${texts.map(shellWord).join(' ')}`]);
    expect(stdout.split('\0').slice(0, -1)).toEqual(texts);
  });
});

describe('on a real listener', () => {
  let t: TestServer;
  let inspector: Inspector;
  const folder = mkdtempSync(join(tmpdir(), 'poi-inspector-'));
  let admin: string;
  let apiKey: string;
  let member: string;
  let poi: number;

  beforeAll(async () => {
    // The listener's address, known once it listens.
    const at: { base?: string } = {};
    inspector = new Inspector(() => at.base, { folder });
    t = await startTestServer({}, { inspector: inspector.ring });
    at.base = t.base;
    const c = t.core.clients.create({ name: 'Demo' });
    admin = c.admin_token;
    apiKey = c.client_id;
    await t.post('/1/users.json', { access_token: admin, username: 'annann', pwd: 'secret-pwd-1', email: 'ann@example.com' });
    const login = await t.post('/1/users/login.json', { api_key: apiKey, username: 'annann', pwd: 'secret-pwd-1' });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    member = (login.json.accreditation as { access_token: string }).access_token;
    poi = (await t.get('/1/pois/add.json', { access_token: member, lat: 40.4, lng: -3.7, name: 'Sol', categories: 7 })).json.id as number;
  });
  afterAll(async () => {
    await t.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const newest = () => inspector.ring.since(0)[0]!;

  it('names who called: the client (api_key or administrator token), a member, or nobody', async () => {
    await t.get('/1/users/me/show.json', { access_token: member });
    expect(newest().summary()).toMatchObject({ caller: 'member', operation: 'users.show', status: 200 });
    await t.get('/1/users.json', { access_token: admin });
    expect(newest().summary()).toMatchObject({ caller: 'client', status: 200 });
    await t.post('/1/users/login.json', { api_key: apiKey, username: 'annann', pwd: 'wrong-password' });
    expect(newest().summary()).toMatchObject({ caller: 'client', method: 'POST', status: 401 });
    await t.get('/1/users/me/show.json', { access_token: 'not-a-token' });
    expect(newest().summary()).toMatchObject({ caller: 'anonymous', status: 401 });
    await t.get('/1/nothing/here.json');
    expect(newest().summary()).toMatchObject({ caller: 'anonymous', operation: null, status: 404 });
    // The third read is the memo's (reply-memo.ts): it still knows who asked.
    for (let i = 0; i < 3; i++) await t.get('/1/pois/get.json', { access_token: member, poi });
    expect(t.server.memoHits).toBeGreaterThan(0);
    expect(newest().summary()).toMatchObject({ caller: 'member', operation: 'pois.get', status: 200 });
    // A reply the listener writes itself, before Fastify, says its type too.
    expect(inspector.get(newest().id).replyHeaders).toContainEqual(['content-type', 'application/json; charset=utf-8']);
  });

  it('keeps a request body and its reply, masked when read', async () => {
    await t.post('/1/users/login.json', { api_key: apiKey, username: 'annann', pwd: 'secret-pwd-1' }, 'json');
    const detail = inspector.get(newest().id);
    expect(detail.requestBody).toMatchObject({ kind: 'json', truncated: false });
    expect(detail.requestBody?.text).toContain('"username": "annann"');
    expect(JSON.stringify(detail)).not.toContain('secret-pwd-1');
    expect(JSON.stringify(detail)).not.toContain(apiKey);
    expect(detail.replyBody?.text).toContain(`"access_token":"${MASK}"`);
  });

  it('saves what it keeps as JSON lines, masked, readable by this user alone', async () => {
    await t.post('/1/users/login.json', { api_key: apiKey, username: 'annann', pwd: 'secret-pwd-1' });
    const { file, count } = inspector.save();
    expect(count).toBe(inspector.ring.size);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(count);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ path: '/1/users/login.json', caller: 'client', requestBody: { kind: 'form' } });
    for (const secret of ['secret-pwd-1', apiKey, member, admin]) expect(readFileSync(file, 'utf8')).not.toContain(secret);
  });

  it('replays a request: the same status and body, marked as a replay', async () => {
    const original = await t.post('/1/pois/get.json', { access_token: member, poi }, 'multipart');
    const id = newest().id;
    const replay = await inspector.replay(id);
    expect(replay.status).toBe(original.status);
    expect(JSON.parse(replay.body.text)).toEqual(original.body);
    expect(replay.id).not.toBeNull();
    expect(inspector.ring.get(replay.id!)?.replayOf).toBe(id);
  });

  it('does not replay a path that leaves the API once normalized', async () => {
    const port = Number(new URL(t.base).port);
    for (const path of ['/1/../ca.pem', '/1/%2e%2e/', '/1/..\\..\\ca.crt', '/1/x/../../connect']) {
      // Sent as written (fetch would normalize it): kept as an API request, answered 400 or 404.
      await new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.end(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
        socket.on('data', () => undefined).on('close', () => resolve()).on('error', reject);
      });
      const kept = newest();
      expect(kept.url).toBe(path);
      // Before: fetch normalized the path and the replay got 200 from /ca.pem, / or /ca.crt.
      await expect(inspector.replay(kept.id)).rejects.toMatchObject({ code: 'FORBIDDEN' });
    }
    expect((Reflect.get(inspector.ring, 'replays') as Map<string, unknown>).size).toBe(0);
  });

  it('writes a curl command that gets the same answer, a body of quotes, newlines and $ included', async () => {
    const name = `it's "Sol" $HOME\n\`x\``;
    const added = await t.post('/1/pois/add.json', { access_token: member, lat: 40.41, lng: -3.71, name, categories: 7 });
    expect(added.status).toBe(200);
    const command = inspector.curl(newest().id, true).command;
    const { stdout } = await run('sh', ['-c', command], { timeout: 10_000 });
    const again = JSON.parse(stdout) as Record<string, unknown>;
    expect(again.name).toBe(name);
    expect(again.id).not.toBe(added.json.id);
    const masked = inspector.curl(newest().id, false).command;
    expect(masked).not.toContain(member);
    expect(masked).toContain(`access_token=${MASK}`);
  });
});
