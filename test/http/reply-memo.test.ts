import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../bench/server-child.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

/**
 * A get.json asked again by the same URL is answered from the listener's memo
 * (main/http/reply-memo.ts), before Fastify, until anything is committed. Over a real file, so
 * that the commit stamp reads the WAL-index header that every process's commits rewrite; the
 * "other process" is a real child process writing with plain SQL.
 */
const dir = mkdtempSync(join(tmpdir(), 'poi-reply-memo-'));
const file = join(dir, 'poi.sqlite');
let f: Fixture;
let poi: number;
const log: string[] = [];

beforeAll(async () => {
  f = await poiFixture({ file });
  f.t.server.on('request', (r) => log.push(`${r.method} ${r.path} ${r.status}`));
  poi = (await f.addPoi({ name: 'Original' })).id as number;
});
afterAll(async () => {
  await f.t.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = (token: string, id = poi): string => `${f.t.base}/1/pois/get.json?oauth_token=${token}&poi=${id}`;
const hits = (): number => f.t.server.memoHits;
const ask = async (token = f.admin, id = poi): Promise<{ status: number; text: string; type: string | null; length: string | null }> => {
  const r = await fetch(url(token, id));
  return { status: r.status, text: await r.text(), type: r.headers.get('content-type'), length: r.headers.get('content-length') };
};
const nameOf = async (token = f.admin): Promise<unknown> => (JSON.parse((await ask(token)).text) as { name?: unknown }).name;

/**
 * Plain SQL by another process on the same file: no code of ours runs there but the six
 * functions the change log's triggers call (main/core/store/write-path.ts), as a tool would.
 */
function otherProcess(sql: string, ...args: Array<string | number>): void {
  const script = [
    "const db = require('better-sqlite3')(process.argv[1]);",
    "db.function('change_now', () => Date.now());",
    "db.function('change_actor_kind', () => 'system');",
    "for (const name of ['change_actor_id', 'change_undoes']) db.function(name, () => null);",
    "db.function('change_op_id', () => require('node:crypto').randomUUID());",
    "db.function('change_fingerprint', (v) => 'fp:' + require('node:crypto').createHash('sha256').update(String(v)).digest('hex').slice(0, 16));",
    'db.prepare(process.argv[2]).run(...JSON.parse(process.argv[3]));',
    'db.close();',
  ].join(' ');
  const run = spawnSync(process.execPath, ['-e', script, file, sql, JSON.stringify(args)], { cwd: ROOT, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(run.stderr);
}

describe('the memo of repeated reads', () => {
  it('answers the same get.json again from memory, with the same bytes and headers, and logs it', async () => {
    const first = await ask();
    const before = hits();
    log.length = 0;
    const again = await ask();
    expect(hits() - before).toBe(1);
    expect(again).toEqual(first);
    expect(first.type).toBe('application/json; charset=utf-8');
    expect(Number(first.length)).toBe(Buffer.byteLength(first.text));
    expect(log).toEqual(['GET /1/pois/get.json 200']);
  });

  it('never answers from before a commit, whoever made it', async () => {
    await ask();
    await ask();
    expect((await f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi, name: 'Here' })).status).toBe(200);
    expect(await nameOf(), 'after an update through the API').toBe('Here');

    await ask();
    otherProcess('UPDATE pois SET name = ? WHERE id = ?', 'Elsewhere', poi);
    expect(await nameOf(), 'after plain SQL by another process').toBe('Elsewhere');

    // A commit that touches no POI drops the memo too: the memo cannot tell what a commit changed.
    await ask();
    await f.addPoi({ name: 'Unrelated' });
    const before = hits();
    await ask();
    expect(hits(), 'after an unrelated commit').toBe(before);
  });

  it('refuses a token revoked here or by another process, and one that expired, though its reply is remembered', async () => {
    const login = async (): Promise<string> => {
      const r = await f.t.post('/1/users/login.json', { api_key: f.apiKey, username: 'fielduser1', pwd: 'secret1' });
      return (r.json.accreditation as { access_token: string }).access_token;
    };
    const here = await login();
    expect((await ask(here)).status).toBe(200);
    expect((await ask(here)).status).toBe(200);
    expect((await f.t.call('DELETE', '/1/users/login.json', { access_token: here }, 'query')).status).toBe(200);
    expect((await ask(here)).status, 'after a logout').toBe(401);

    const elsewhere = await login();
    await ask(elsewhere);
    await ask(elsewhere);
    otherProcess('UPDATE tokens SET revoked_at = 1 WHERE revoked_at IS NULL AND role = ?', 'member');
    expect((await ask(elsewhere)).status, 'after a revocation by another process').toBe(401);

    const clientId = f.t.core.tokens.resolve(f.admin).clientId;
    const brief = f.t.core.tokens.issue(clientId, 'member', f.memberId, f.t.core.clock.now() + 60_000);
    await ask(brief);
    const before = hits();
    expect((await ask(brief)).status).toBe(200);
    expect(hits() - before, 'remembered while the token lives').toBe(1);
    f.t.core.clock.advance(60_000);
    const late = await ask(brief);
    expect(late.status).toBe(401);
    expect(JSON.parse(late.text)).toMatchObject({ code: 401 });
    expect(late.text).toContain('expired');
  });

  it('refuses a token whose row this process deleted without revoking it (a sync pull deleting its member)', async () => {
    const clientId = f.t.core.tokens.resolve(f.admin).clientId;
    const r = await f.t.post('/1/users/login.json', { api_key: f.apiKey, username: 'fielduser1', pwd: 'secret1' });
    const token = (r.json.accreditation as { access_token: string }).access_token;
    await ask(token);
    expect((await ask(token)).status).toBe(200);
    // Plain SQL on the core's own connection, as a sync's apply writes: no revocation, no cache drop.
    f.t.core.db.prepare("DELETE FROM tokens WHERE client_id = ? AND role = 'member'").run(clientId);
    expect((await ask(token)).status).toBe(401);
  });

  it('keeps every client to its own POIs: the URL carries the token', async () => {
    await ask();
    expect((await ask(f.otherAdmin)).status).toBe(404);
  });

  it('remembers only GETs without a body, of repeatable operations', async () => {
    const before = hits();
    for (let i = 0; i < 2; i++) {
      await f.t.post('/1/pois/get.json', { oauth_token: f.admin, poi });
      await f.t.call('HEAD', '/1/pois/get.json', { oauth_token: f.admin, poi });
      await f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, lat: 40.4, lng: -3.7, radius: 1000 });
      await f.t.get('/1/pois/categories.json', { oauth_token: f.admin });
    }
    expect(hits()).toBe(before);
  });

  it('sees a write acknowledged while many reads of the same POI are in flight', async () => {
    const prior = await nameOf();
    const during = Array.from({ length: 40 }, () => nameOf());
    const update = f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi, name: 'Raced' });
    const more = Array.from({ length: 40 }, () => nameOf());
    expect((await update).status).toBe(200);
    const after = await Promise.all(Array.from({ length: 40 }, () => nameOf()));
    for (const name of await Promise.all([...during, ...more])) expect([prior, 'Raced']).toContain(name);
    expect(new Set(after)).toEqual(new Set(['Raced']));
  });
});

describe('without the memo (serve --no-reply-cache)', () => {
  it('answers every request afresh', async () => {
    const plain = await poiFixture({}, { replyMemo: false });
    try {
      const id = (await plain.addPoi()).id as number;
      const get = () => plain.t.get('/1/pois/get.json', { oauth_token: plain.admin, poi: id });
      expect((await get()).status).toBe(200);
      expect((await get()).status).toBe(200);
      expect(plain.t.server.memoHits).toBe(0);
    } finally {
      await plain.t.close();
    }
  });
});
