import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../bench/server-child.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

/**
 * A get.json asked a third time by the same URL is answered from the listener's memo
 * (main/http/reply-memo.ts), before Fastify: the second ask stores it, until something it answered
 * changes. Over a real file, so that the commit stamp reads the WAL-index header that every
 * process's commits rewrite; the "other process" is a real child process writing with plain SQL.
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
    await ask();
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
    const afterUpdate = JSON.parse((await ask()).text) as { name: string; last_update: string };
    expect(afterUpdate.name, 'after an update through the API').toBe('Here');

    await ask();
    await ask();
    otherProcess('UPDATE pois SET name = ? WHERE id = ?', 'Elsewhere', poi);
    expect(await nameOf(), 'after plain SQL by another process').toBe('Elsewhere');

    // A write the change log leaves out, alone between two looks: the memo cannot tell what it changed.
    await ask();
    await ask();
    otherProcess('UPDATE pois SET updated_at = updated_at + 5000 WHERE id = ?', poi);
    const fresh = JSON.parse((await ask()).text) as { last_update: string };
    expect(Date.parse(fresh.last_update) - Date.parse(afterUpdate.last_update), 'after a write of updated_at alone').toBe(5_000);
  });

  it('stores a URL only once it has been asked twice', async () => {
    const once = (await f.addPoi({ name: 'Asked once' })).id as number;
    const before = hits();
    await ask(f.admin, once);
    await ask(f.admin, once);
    expect(hits() - before, 'the second ask is answered afresh: the first stored nothing').toBe(0);
    await ask(f.admin, once);
    expect(hits() - before, 'the third is the memo\'s').toBe(1);
    // A URL that differs in nothing but an ignored parameter is another URL, asked once.
    expect((await fetch(`${url(f.admin, once)}&n=1`)).status).toBe(200);
    expect((await fetch(`${url(f.admin, once)}&n=2`)).status).toBe(200);
    expect(hits() - before).toBe(1);
  });

  it('keeps a POI\'s reply when another POI is written, here or by another process, and drops it when its own is', async () => {
    const one = (await f.addPoi({ name: 'One' })).id as number;
    const two = (await f.addPoi({ name: 'Two' })).id as number;
    const answer = async (id: number): Promise<string> => (JSON.parse((await ask(f.admin, id)).text) as { name: string }).name;
    await answer(one);
    await answer(one);
    let before = hits();
    expect((await f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi: two, name: 'Two here' })).status).toBe(200);
    await f.addPoi({ name: 'Three' });
    expect(await answer(one)).toBe('One');
    expect(hits() - before, 'after writes here to other POIs').toBe(1);

    before = hits();
    otherProcess('UPDATE pois SET name = ? WHERE id = ?', 'Two elsewhere', two);
    expect(await answer(one)).toBe('One');
    expect(hits() - before, 'after a write by another process to another POI').toBe(1);
    expect(await answer(two)).toBe('Two elsewhere');

    otherProcess('UPDATE pois SET name = ? WHERE id = ?', 'One elsewhere', one);
    expect(await answer(one), 'after a write by another process to this POI').toBe('One elsewhere');
    await answer(one);
    before = hits();
    expect((await f.t.get('/1/pois/warnings/add.json', { oauth_token: f.admin, poi: one, type: 'CLOSED' })).status).toBe(200);
    expect((JSON.parse((await ask(f.admin, one)).text) as { warnings: { closed: number } }).warnings.closed, 'after a report on it').toBe(1);
    expect(hits() - before).toBe(0);
  });

  it('drops every reply when a category is renamed, here or by another process', async () => {
    const clientId = f.t.core.tokens.resolve(f.admin).clientId;
    const category = f.t.core.categories.add(clientId, { desc: 'Kiosk' });
    const id = (await f.addPoi({ name: 'Listed', categories: category.Id })).id as number;
    const names = async (): Promise<string[]> =>
      (JSON.parse((await ask(f.admin, id)).text) as { categories: Array<{ Description: string }> }).categories.map((c) => c.Description);
    await names();
    await names();
    await f.t.core.console['categories.update']({ clientId, category: category.Id, desc: 'Newsstand' });
    expect(await names()).toEqual(['Newsstand']);
    await names();
    otherProcess('UPDATE categories SET description = ? WHERE id = ?', 'Bookstall', category.Id);
    expect(await names()).toEqual(['Bookstall']);
  });

  it('forgets everything when this process restores a backup', async () => {
    const id = (await f.addPoi({ name: 'Backed up' })).id as number;
    const backup = await f.t.core.backups.create('manual');
    expect((await f.t.get('/1/pois/update.json', { oauth_token: f.admin, poi: id, name: 'After the backup' })).status).toBe(200);
    await ask(f.admin, id);
    await ask(f.admin, id);
    await f.t.core.backups.restore(f.t.core.backups.pathOf(backup.name));
    expect((JSON.parse((await ask(f.admin, id)).text) as { name: string }).name).toBe('Backed up');
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

/** Freezes an object and everything in it, as a caller that changed a shared reply would then throw. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) deepFreeze(inner);
}

describe('the reply cache underneath', () => {
  it('shares a reply that no path changes: frozen here, it is still read through every path', async () => {
    const id = (await f.addPoi({ name: 'Shared', categories: 7 })).id as number;
    const viaPost = () => f.t.post('/1/pois/get.json', { oauth_token: f.admin, poi: id });
    expect((await viaPost()).status).toBe(200);
    expect((await viaPost()).status).toBe(200);
    const shared = f.t.core.replyCache.stored(id);
    expect(shared, 'stored by the second ask').toBeDefined();
    deepFreeze(shared);
    const text = JSON.stringify(shared);
    const answers = [
      await viaPost(),
      await f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: id }),
      await f.t.get('/1/pois/get.json', { access_token: f.admin, poi: id, other: 'parameter' }),
      await f.t.call('HEAD', '/1/pois/get.json', { oauth_token: f.admin, poi: id }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(f.t.core.replyCache.stored(id), 'the same object, not another built after a failure').toBe(shared);
    expect(JSON.stringify(shared)).toBe(text);
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
