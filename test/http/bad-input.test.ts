import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHAPES, exchange, nastyText, numberCaseArb, render, requestArb, shapeFor, wellFormed, wireBytes, type BodyKind, type Part, type Req, type Wire } from '../support/arbitraries.js';
import { poiFixture, type Fixture } from '../support/fixture.js';
import { invokeApi } from '../support/core.js';
import { rawRequest } from '../support/raw-http.js';

/**
 * Property: whatever a client sends, every operation answers JSON, either a documented success
 * or a documented 4xx `{code, description}`; never a 5xx, a hang or a dropped connection; a
 * refused request changes nothing, and the server keeps answering. A violation that matches a
 * bug already reported is collected rather than thrown, so the run still covers everything
 * else, and the property fails at its end listing them; any other violation fails at once.
 */

const SEED = Number(process.env.BAD_INPUT_SEED ?? 20_260_115);
const TIMEOUT_MS = 5_000;
const BODY_LIMIT = 64 * 1024;
const HEADER_LIMIT = 16 * 1024;
const MALFORMED = { status: 400, description: 'EXCEPTION_MALFORMED_REQUEST' };
const HIGH = { points: 1e6, seconds: 60 };

let f: Fixture;
let port: number;
const w = { admin: '', member: '', other: '', otherClient: '', apiKey: '', openKey: '', memberId: '', victim: '', poi: 0, category: 0 };
let requests = 0;
let spawned = 0;
/** Known bugs hit by the running property: how often, and the first request that hit each. */
const known = new Map<string, { count: number; example: string }>();
let knownTotal = 0;
const started = Date.now();

beforeAll(async () => {
  f = await poiFixture({ limits: { loginFailuresPerUser: HIGH, loginFailuresPerAddress: HIGH, registrationsPerUser: HIGH, registrationsPerAddress: HIGH } });
  port = Number(new URL(f.t.base).port);
  // As `serve` does: without a listener, emit('error') throws and Fastify answers a 500 in its own shape.
  f.t.server.on('error', () => undefined);
  Object.assign(w, { admin: f.admin, member: f.member, other: f.otherAdmin, apiKey: f.apiKey, memberId: f.memberId });
  w.otherClient = f.t.core.tokens.resolve(f.otherAdmin).clientId;
  w.openKey = f.t.core.clients.create({ name: 'Open', implicitFlow: true }).client_id;
  await ensureWorld();
});
afterAll(async () => {
  const s = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`bad-input: ${requests} requests generated (seed ${SEED}, ${s} s, ${knownTotal} hit known bugs)`);
  await f.t.close();
});

// ------------------------------------------------------------------ the world the requests refer to

const alive = (token: string): boolean => {
  try {
    f.t.core.tokens.resolve(token);
    return true;
  } catch {
    return false;
  }
};

/** Puts back what successful requests took away (a logged-out admin token, a deleted POI...). */
async function ensureWorld(): Promise<void> {
  const { core } = f.t;
  if (!alive(w.admin)) w.admin = core.clients.rotateAdminToken(w.apiKey);
  if (!alive(w.other)) w.other = core.clients.rotateAdminToken(w.otherClient);
  if (!core.members.find(w.apiKey, w.memberId)) {
    // The member logins are tried with; deleted by a fuzzed request, it comes back.
    const s = await core.members.register(w.apiKey, { username: 'fielduser1', pwd: 'secret1', email: 'field@example.com' });
    Object.assign(w, { memberId: s.member.id, member: s.token });
  }
  if (!alive(w.member)) w.member = (await core.members.startSession(core.members.require(w.apiKey, w.memberId), undefined)).token;
  if (!w.victim || !core.members.find(w.apiKey, w.victim)) {
    w.victim = (await core.members.register(w.apiKey, { username: `victim${++spawned}x`, pwd: 'secret1', email: `victim${spawned}@example.net` })).member.id;
  }
  if (!core.db.prepare('SELECT 1 FROM pois WHERE id = ?').get(w.poi)) {
    w.poi = (await invokeApi(core, 'pois.add', { accessToken: w.admin }, { lat: 40.4169, lng: -3.7035, name: 'Puerta del Sol', categories: [7] })).id;
  }
  const category = core.db.prepare<[number], { deleted_at: number | null }>('SELECT deleted_at FROM categories WHERE id = ?').get(w.category);
  if (!category || category.deleted_at !== null) w.category = (await invokeApi(core, 'categories.add', { accessToken: w.admin }, { desc: 'Fuzzed' })).Id;
}

/** Replaces `⟦ADMIN⟧`, `⟦POI:upper⟧`... by live values; `⟦FRESH⟧` is a new member token each time. */
function sub(text: string): string {
  return text.replace(/⟦(\w+)(?::(\w+))?⟧/g, (_m, key: string, mod: string | undefined) => {
    const value =
      key === 'FRESH'
        ? f.t.core.tokens.issue(w.apiKey, 'member', w.memberId, f.t.core.clock.now() + 60_000)
        : String({ ADMIN: w.admin, MEMBER: w.member, OTHER: w.other, APIKEY: w.apiKey, OPENKEY: w.openKey, MEMBERID: w.memberId, VICTIM: w.victim, POI: w.poi, CATEGORY: w.category }[key]);
    return mod === 'upper' ? value.toUpperCase() : mod === 'pad' ? ` ${value} ` : value;
  });
}

/** Row counts and a fingerprint of the values of every table a request may write. */
function snapshot(): string {
  const row = f.t.core.db
    .prepare(
      `SELECT
        (SELECT count(*) || ':' || total(lat) || ':' || total(lng) || ':' || total(ifnull(elevation, 0) + ifnull(accuracy, 0) + ifnull(vaccuracy, 0))
          || ':' || total(length(name) + unicode(name) + ifnull(length(description), 0) + ifnull(length(address), 0) + ifnull(length(cross_street), 0)
          + ifnull(length(city), 0) + ifnull(length(country), 0) + ifnull(length(postal_code), 0) + ifnull(length(phone), 0) + ifnull(length(twitter), 0))
          FROM pois) AS pois,
        (SELECT count(*) FROM poi_categories) AS links,
        (SELECT count(*) || ':' || count(deleted_at) || ':' || total(length(description)) FROM categories) AS categories,
        (SELECT count(*) || ':' || group_concat(gender || ifnull(birthday, '') || substr(pwd_hash, -6)) FROM members) AS members,
        (SELECT count(*) || ':' || count(revoked_at) FROM tokens) AS tokens,
        (SELECT count(*) || ':' || total(length(ifnull(data, ''))) FROM warnings) AS warnings`,
    )
    .get();
  return JSON.stringify(row);
}

// ------------------------------------------------------------------ sending and judging

interface Outcome {
  status: number;
  /** The content type, when the transport shows it. */
  type?: string;
  text: string;
}

async function send(r: Req, wire: Wire): Promise<Outcome> {
  try {
    if (r.transport === 'fetch') {
      const init: RequestInit = { method: wire.method, headers: wire.headers, signal: AbortSignal.timeout(TIMEOUT_MS) };
      if (wire.body) init.body = new Uint8Array(wire.body);
      const res = await fetch(`${f.t.base}${wire.target}`, init);
      return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
    }
    const bytes = wireBytes(wire, r.framing);
    if (r.transport === 'raw') {
      const answer = await exchange(port, bytes, TIMEOUT_MS, wire.method === 'HEAD');
      return { status: answer.status, type: answer.type, text: answer.body };
    }
    const answer = await rawRequest(port, bytes, TIMEOUT_MS);
    // Bytes past a short Content-Length are a second request: keep the first answer only.
    const next = answer.body.indexOf('HTTP/1.1 ');
    return { status: answer.status, text: next === -1 ? answer.body : answer.body.slice(0, next) };
  } catch (error) {
    return { status: 0, text: `transport error: ${String(error)}` };
  }
}

/** The documented answer, once what comes before the defect is accounted for. */
function expectation(r: Req, wire: Wire): Req['expect'] {
  const head = wire.target.length + wire.headers.reduce((n, [k, v]) => n + k.length + v.length + 4, 0) + 300;
  if (r.framing?.wire !== undefined) return r.expect;
  if (head > HEADER_LIMIT + 1_024) return MALFORMED;
  if (head > HEADER_LIMIT - 1_024) return undefined;
  if ((wire.body?.length ?? 0) > BODY_LIMIT && r.defect !== 'contentType') return { status: 413, description: 'EXCEPTION_PAYLOAD_TOO_LARGE' };
  return r.expect;
}

const NUMERIC = new Map([['lat', 'latitude'], ['lng', 'longitude'], ['accuracy', 'accuracy'], ['vaccuracy', 'vaccuracy'], ['elevation', 'elevation']]);

type Tag = 'answer' | '5xx' | 'json' | 'expected' | 'code' | 'shape' | 'unchanged';

/** A bug already reported (see the `known bugs` tests), and which assertions it breaks. */
function knownBug(r: Req, out: Outcome): [string, Tag[]] | undefined {
  if (r.body === 'multipart' && r.parts.some((p) => p.in === 'body' && p.name === '') && out.status === 500) return ['a multipart field with an empty name is a 500', ['5xx', 'expected']];
  if (r.defect === 'badUtf8' && r.body !== 'none' && out.status > 0 && out.status < 500) return ['invalid UTF-8 in a body is replaced by U+FFFD, not refused', ['expected']];
  if (r.framing?.noHost && out.status === 400) return ['an HTTP/1.1 request without Host gets a non-JSON 400', ['json', 'code']];
  if (r.method === 'CONNECT') return ['CONNECT drops the connection', ['answer']];
  return undefined;
}

function record(bug: string, example: string): void {
  knownTotal += 1;
  const seen = known.get(bug);
  if (seen) seen.count += 1;
  else known.set(bug, { count: 1, example });
}

/** Fails the property if known bugs were hit, listing each with its first request. */
async function withKnownBugs(run: () => Promise<void>): Promise<void> {
  known.clear();
  await run();
  expect([...known].map(([bug, { count, example }]) => `${bug} (${count}x), e.g. ${example}`).join('\n'), 'known bugs hit').toBe('');
}

const describeSent = (r: Req, wire: Wire): string =>
  `${r.op}/${r.defect} ${r.transport} ${wire.method} ${wire.target.slice(0, 200)}${wire.body ? ` body=${JSON.stringify(wire.body.toString('latin1').slice(0, 200))}` : ''}`;

async function check(r: Req): Promise<void> {
  await ensureWorld();
  const wire = render(r, sub);
  const before = snapshot();
  requests += 1;
  const out = await send(r, wire);
  let body: unknown;
  try {
    body = wire.method === 'HEAD' && r.transport !== 'cut' ? undefined : JSON.parse(out.text);
  } catch {
    body = undefined;
  }
  const description = (body as { description?: unknown } | undefined)?.description;
  const bug = knownBug(r, out);
  let recorded = false;
  const say = (cond: boolean, tag: Tag, message: string): void => {
    if (cond) return;
    if (bug?.[1].includes(tag)) {
      if (!recorded) record(bug[0], describeSent(r, wire));
      recorded = true;
      return;
    }
    throw new Error(`${message}\n  sent: ${describeSent(r, wire)}\n  got: ${out.status} ${out.type ?? ''} ${out.text.slice(0, 300)}`);
  };
  say(out.status > 0, 'answer', 'no answer: the connection was dropped or timed out');
  if (out.status === 0) return say(snapshot() === before, 'unchanged', 'a dropped request changed data');
  say(out.status < 500, '5xx', 'a 5xx answer');
  if (out.type !== undefined) say(/^application\/json/.test(out.type), 'json', 'the answer is not JSON');
  if (wire.method !== 'HEAD') say(typeof body === 'object' && body !== null, 'json', 'the body is not JSON');
  const expected = expectation(r, wire);
  if (out.status < 400) {
    say(out.status === 200, 'expected', 'a success other than 200');
    say(expected === undefined, 'expected', `accepted, but ${JSON.stringify(expected)} is documented`);
    if (wire.method !== 'HEAD') say(SHAPES[shapeFor(wire.method, wire.target)](body), 'shape', `not a ${shapeFor(wire.method, wire.target)} reply`);
    // A POI added or updated keeps exactly the numbers sent.
    for (const p of /^\/1\/pois\/(add|update)\.json/.test(wire.target) && wire.method !== 'HEAD' ? r.parts : []) {
      const key = NUMERIC.get(p.name.toLowerCase());
      const sent = typeof p.value === 'string' ? sub(p.value).trim() : '';
      if (key && sent !== '') say((body as Record<string, unknown>)[key] === Number(sent), 'shape', `${key} is not the number sent (${sent})`);
    }
    return;
  }
  if (wire.method !== 'HEAD') {
    say((body as { code?: unknown } | undefined)?.code === out.status, 'code', 'code differs from the HTTP status');
    say(typeof description === 'string' && /^EXCEPTION_[A-Z_]+$/.test(description), 'code', 'description is not EXCEPTION_*');
    if (expected?.description) say(description === expected.description, 'expected', `expected ${expected.description}`);
  }
  if (expected) say(out.status === expected.status, 'expected', `expected status ${expected.status}`);
  say(snapshot() === before, 'unchanged', 'a refused request changed data');
}

/** A well-formed request, through the same renderer and transport (with its timeout) as the fuzzed ones. */
async function simple(method: string, path: string, body: BodyKind, params: Record<string, string>): Promise<Outcome & { json: Record<string, unknown> }> {
  const parts = Object.entries(params).map(([name, value]): Part => ({ name, value, in: body === 'none' ? 'query' : 'body' }));
  const r: Req = { op: path, method, verbs: [method], path, parts, body, transport: 'fetch', headers: [], defect: 'simple', shape: 'none' };
  requests += 1;
  const out = await send(r, render(r, sub));
  try {
    return { ...out, json: JSON.parse(out.text) as Record<string, unknown> };
  } catch {
    throw new Error(`not JSON: ${method} ${path} -> ${out.status} ${out.text.slice(0, 200)}`);
  }
}

// ------------------------------------------------------------------ properties

describe('bad input never gets a 5xx, a hang, a non-JSON answer, or a change of data', () => {
  it('answers random, boundary and malformed requests to every operation with a documented JSON reply', async () => {
    console.log(`bad-input: seed ${SEED}`);
    await withKnownBugs(() => fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: 1, maxLength: 12 }), async (batch) => {
        for (const r of batch) await check(r);
        await ensureWorld();
        const health = await fetch(`${f.t.base}/1/users.json?access_token=${w.admin}`, { signal: AbortSignal.timeout(TIMEOUT_MS) });
        expect(health.status).toBe(200);
        expect(Array.isArray(await health.json())).toBe(true);
      }),
      { numRuns: 480, seed: SEED, endOnFailure: true },
    ));
  }, 120_000);

  it('gives back stored strings byte-for-byte, whatever the encoding', async () => {
    let categoriesAdded = 0;
    const encodings = fc.constantFrom<Req['body']>('none', 'form', 'multipart', 'json');
    const fields = fc.record({
      name: nastyText(255, 1), desc: nastyText(1024), address: nastyText(255), cross_street: nastyText(255), city: nastyText(100),
      country: nastyText(100), postal_code: nastyText(12), phone: nastyText(20), twitter: nastyText(50),
    });
    await withKnownBugs(() => fc.assert(
      // 100 characters at most, with the number in front (up to `#999 `).
      fc.asyncProperty(fields, nastyText(95, 1), encodings, encodings, async (values, desc, addBody, getBody) => {
        await ensureWorld();
        const sent: Record<string, string> = addBody === 'json' ? values : Object.fromEntries(Object.entries(values).map(([k, v]) => [k, wellFormed(v)]));
        const call = async (path: string, body: BodyKind, params: Record<string, string>): Promise<Record<string, unknown>> => {
          const out = await simple(body === 'none' ? 'GET' : 'POST', path, body, params);
          if (out.status !== 200) throw new Error(`a valid request was refused: ${path} ${JSON.stringify(params).slice(0, 300)} -> ${out.text.slice(0, 300)}`);
          return out.json;
        };
        // A lone surrogate (only JSON can carry one) is not Unicode: it must be refused, whole.
        if (Object.values(sent).some((v) => v !== wellFormed(v))) {
          const out = await simple('POST', '/1/pois/add.json', addBody, { ...sent, oauth_token: '⟦ADMIN⟧', lat: '48.8584', lng: '2.2945', categories: '7' });
          expect(out.status).toBe(400);
          expect(out.json).toMatchObject({ code: 400, description: MALFORMED.description });
          return;
        }
        const added = await call('/1/pois/add.json', addBody, { ...sent, oauth_token: '⟦ADMIN⟧', lat: '48.8584', lng: '2.2945', categories: '7' });
        const got = await call('/1/pois/get.json', getBody, { oauth_token: '⟦MEMBER⟧', poi: String(added.id) });
        for (const [k, v] of Object.entries(sent)) {
          const reply = k === 'desc' ? 'description' : k;
          const same = added[reply] === (v === '' ? null : v) && got[reply] === added[reply];
          if (!same && v !== wellFormed(v)) record('a lone surrogate sent in JSON comes back as three U+FFFD', `${k}=${JSON.stringify(v)}`);
          else {
            expect(added[reply], `add ${k}`).toBe(v === '' ? null : v);
            expect(got[reply], `get ${k}`).toBe(v === '' ? null : v);
          }
        }
        // Numbered: two categories of one client may not share a name (folded), and the fuzzer repeats itself.
        const named = `#${++categoriesAdded} ${wellFormed(desc)}`;
        const cat = await call('/1/pois/categories/add.json', addBody, { oauth_token: '⟦ADMIN⟧', desc: named });
        expect(cat.Description).toBe(named);
      }),
      { numRuns: 150, seed: SEED, endOnFailure: true },
    ));
  }, 60_000);
});

describe('numbers at and past their documented bounds', () => {
  it('accepts exactly the numbers the README allows and stores them as sent', async () => {
    await f.t.core.members.register(w.apiKey, { username: 'numbers01', pwd: 'secret1', email: 'numbers@example.com' });
    const calls = {
      add: ['/1/pois/add.json', { oauth_token: '⟦ADMIN⟧', lat: '1', lng: '1', name: 'N', categories: '7' }],
      near: ['/1/pois/get_near.json', { oauth_token: '⟦MEMBER⟧', lat: '1', lng: '1', radius: '1000' }],
      list: ['/1/users.json', { access_token: '⟦ADMIN⟧' }],
      login: ['/1/users/login.json', { api_key: '⟦APIKEY⟧', username: 'numbers01', pwd: 'secret1' }],
    } as const;
    await fc.assert(
      fc.asyncProperty(numberCaseArb, async (c) => {
        await ensureWorld();
        const [path, base] = calls[c.op];
        const before = snapshot();
        const body = c.op === 'list' || c.encoding === 'query' ? 'none' : c.encoding;
        const a = await simple(c.op === 'list' ? 'GET' : 'POST', path, body, { ...base, [c.param]: c.text });
        const what = `${c.op} ${c.param}=${JSON.stringify(c.text)} (${c.encoding}) is ${c.verdict}; got ${a.status} ${a.text.slice(0, 200)}`;
        if (a.status === 200) {
          expect(c.verdict, what).not.toBe('invalid');
          if (c.op === 'add') expect(a.json[NUMERIC.get(c.param)!] === Number(c.text), what).toBe(true);
        } else {
          expect(c.verdict, what).not.toBe('valid');
          expect(a.json, what).toMatchObject({ code: 400, description: 'EXCEPTION_INVALID_PARAMETER', parameter: c.param });
          expect(snapshot(), what).toBe(before);
        }
      }),
      { numRuns: 400, seed: SEED, endOnFailure: true },
    );
  }, 60_000);
});

// ------------------------------------------------------------------ known bugs, kept failing until fixed

describe('known bugs (each a minimal reproduction)', () => {
  /** POST /1/pois/add.json with every parameter in the query but `name`, sent in the body as `A` + byte FF. */
  const post = (type: string, body: string): Buffer => {
    const bytes = Buffer.from(body, 'latin1');
    const head = `POST /1/pois/add.json?oauth_token=${w.admin}&lat=1&lng=1&categories=7 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ${type}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
    return Buffer.concat([Buffer.from(head), bytes]);
  };
  const utf8Cases: Array<[string, () => Buffer]> = [
    ['form', () => post('application/x-www-form-urlencoded', 'name=A\xff')],
    ['json', () => post('application/json', '{"name":"A\xff"}')],
    ['multipart', () => post('multipart/form-data; boundary=B', '--B\r\nContent-Disposition: form-data; name="name"\r\n\r\nA\xff\r\n--B--\r\n')],
  ];

  it.each(utf8Cases)('refuses raw invalid UTF-8 in a %s body (400), never replacing it', async (_kind, bytes) => {
    const before = snapshot();
    const out = await exchange(port, bytes(), TIMEOUT_MS);
    expect(out.body).toMatch(/EXCEPTION_MALFORMED_REQUEST/);
    expect(snapshot()).toBe(before);
  });

  it('keeps a lone surrogate sent in JSON, or refuses it', async () => {
    const r = await f.t.post('/1/pois/add.json', { oauth_token: w.admin, lat: 1, lng: 1, categories: 7, name: 'A\ud800' }, 'json');
    if (r.status === 200) expect(r.json.name).toBe('A\ud800');
    else expect(r.json).toMatchObject({ code: 400, description: MALFORMED.description });
  });

  it('answers an HTTP/1.1 request without Host in JSON', async () => {
    const out = await exchange(port, Buffer.from(`GET /1/users.json?access_token=${w.admin} HTTP/1.1\r\nConnection: close\r\n\r\n`), TIMEOUT_MS);
    expect(out.type).toMatch(/^application\/json/);
    expect(JSON.parse(out.body)).toMatchObject({ code: 400, description: MALFORMED.description });
  });

  it('answers CONNECT instead of dropping the connection', async () => {
    const out = await exchange(port, Buffer.from(`CONNECT /1/users.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`), TIMEOUT_MS);
    expect(out.status).toBeGreaterThanOrEqual(400);
    expect(out.status).toBeLessThan(500);
  });

  it('refuses or ignores a multipart field with an empty name, never a 500', async () => {
    const out = await exchange(port, post('multipart/form-data; boundary=B', '--B\r\nContent-Disposition: form-data; name=""\r\n\r\nv\r\n--B--\r\n'), TIMEOUT_MS);
    expect(out.status).toBeLessThan(500);
  });

  it('keeps the year of a birthday before year 100', async () => {
    const r = await f.t.post('/1/users.json', { access_token: w.admin, username: 'oldtimer01', pwd: 'secret1', email: 'old@example.com', birthday: '0050-06-01T00:00:00Z' });
    expect(r.status).toBe(200);
    expect((r.json.profile as { birthday: string }).birthday).toBe('0050-06-01T00:00:00.000+00:00');
  });
});
