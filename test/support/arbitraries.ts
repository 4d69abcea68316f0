import fc from 'fast-check';
import { connect } from 'node:net';

/**
 * Generators of hostile requests for test/http/bad-input.test.ts, and the helpers that put them
 * on the wire. Credentials and ids are placeholders (`⟦ADMIN⟧`, `⟦POI:upper⟧`) that the test
 * replaces with live values just before sending, so counterexamples stay readable.
 */

/** What a success reply of the operation must look like. */
export type Shape = 'user' | 'users' | 'ok' | 'poi' | 'pois' | 'category' | 'categories' | 'warning' | 'groups' | 'none';
/** `raw`: latin1 bytes put on the wire as they are (bad escapes, invalid UTF-8); `json`: a non-string JSON value. */
export type Val = string | { raw: string } | { json: unknown };
export interface Part {
  name: string;
  value: Val;
  in: 'query' | 'body';
  /** The name goes on the wire as it is (a malformed escape in a name). */
  rawName?: true;
}
export type BodyKind = 'none' | 'form' | 'multipart' | 'json';
export interface Req {
  op: string;
  method: string;
  /** The verbs the operation accepts at this path. */
  verbs: string[];
  /** Below `/`, with the id segment already encoded (or raw). */
  path: string;
  parts: Part[];
  body: BodyKind;
  /** Content-type and bytes that replace the rendered body (content-type defects, oversized bodies). */
  override?: { type?: string; bytes: string };
  /** raw: over a socket (bytes fetch refuses to send); cut: through rawRequest, which half-closes. */
  transport: 'fetch' | 'raw' | 'cut';
  headers: Array<[string, string]>;
  framing?: { noHost?: boolean; lengthDelta?: number; version?: string; wire?: string };
  defect: string;
  /** The documented answer the defect must get; undefined: any documented answer. */
  expect?: { status: number; description?: string };
  shape: Shape;
}

// ---------------------------------------------------------------- values

const SQL_HTML = ["' OR 1=1 --", '<img src=x onerror=alert(1)>', '%00', '\u0000', "Robert'); DROP TABLE pois;--", '"; --', '<script>alert(1)</script>', '${7*7}', '{{7*7}}', '%s%n'];
const ODD = ['null', 'undefined', 'true', '[]', '{}', '\\', '"', ' ', '+', '&', '=', '?', '#', ';', ',', '\r\n', '\t', '\u202e', '\ufeff', '\u2028', 'é', 'e\u0301', '💥', '👨‍👩‍👧‍👦', '🇪🇸', '\ud83d', '__proto__', 'constructor'];
export const FRAGMENTS = [...SQL_HTML, ...ODD, 'Puerta del Sol', 'Café', '東京タワー', 'ﷺ', 'Z̤͔ͧ̑̓'];
const NUMBERS = ['1e309', '-1e309', 'NaN', 'Infinity', '-Infinity', '-0', '+0', '0x10', '1_000', '1,5', '0b1', '1e', 'e1', '.', '-', '1.', '.5', ' 40 ', '40\u00a0', '٤٠', '４０', '1.0E-4', '00040', '9'.repeat(70), '1e-400', '4.9e-324', '1.7976931348623157e308', '9007199254740993', '-9007199254740993', ''];

const oneOf = <T>(...xs: T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
const evil = fc.oneof(oneOf(...FRAGMENTS), fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 6 }));
const weirdNumber = oneOf(...NUMBERS);
const huge = fc.integer({ min: 2_000, max: 30_000 }).map((n) => 'A'.repeat(n));

/** Renders a number the ways clients write it (`40`, `40.000`, Java's `4.0E1`). */
const numberText = (n: number): fc.Arbitrary<string> =>
  fc.constantFrom(String(n), n.toFixed(3), n.toExponential().replace('e', 'E'), n.toExponential(), `${n < 0 ? '' : '+'}${n}`);

/** Values at and just past the bounds, anywhere between, and far outside. */
const bounded = (lo: number, hi: number, integer = false): fc.Arbitrary<string> =>
  fc
    .oneof(
      oneOf(lo, hi, lo - 1, hi + 1, lo - 1e-9, hi + 1e-9, 0, -0, lo * 10 - 1, hi * 10 + 1),
      integer ? fc.integer({ min: lo, max: Math.min(hi, 2 ** 31) }) : fc.double({ min: lo, max: hi, noNaN: true }),
      fc.double(),
    )
    .chain(numberText);

/** Strings of exactly 0, 1, max-1, max, max+1 and 2*max characters, of 1- or 2-unit code points. */
const lengths = (max: number): fc.Arbitrary<string> =>
  fc.tuple(oneOf(0, 1, max - 1, max, max + 1, max * 2), oneOf('a', '😀', 'é', '<', "'", ' ', 'e\u0301')).map(([n, c]) => c.repeat(Math.max(n, 0)));

/** A parameter's valid values, and its invalid ones (always with hostile strings and odd numbers). */
interface Field {
  good: fc.Arbitrary<string>;
  bad: fc.Arbitrary<string>;
}
const field = (good: fc.Arbitrary<string>, ...bad: Array<fc.Arbitrary<string>>): Field => ({ good, bad: fc.oneof(evil, weirdNumber, huge, ...bad) });

const num = (lo: number, hi: number, good: fc.Arbitrary<number>, integer = false) => field(good.chain(numberText), bounded(lo, hi, integer));
const text = (max: number, good: fc.Arbitrary<string> = nastyText(max)) => field(good, lengths(max));

const ids = (good: fc.Arbitrary<string>) =>
  field(good, oneOf('0', '-1', '1.5', '7,', ',', '1e3', '99999', '7,,8', ' 7 , 8 ', Array(51).fill(0).map((_, i) => i + 1).join(','), Array(1001).fill('1').join(',')));

export const guid = fc.uuid().map((u) => u.toString());
const lat = num(-90, 90, fc.double({ min: -90, max: 90, noNaN: true }));
const lng = num(-180, 180, fc.double({ min: -180, max: 180, noNaN: true }));
const cats = ids(oneOf('7', '1,7', '7,7', '⟦CATEGORY⟧', '⟦CATEGORY⟧,30'));
const poiRef = field(oneOf('⟦POI⟧', '⟦POI⟧', '1', '1.0', '1e0'), oneOf('0', '-1', '9007199254740993', '99999'));
const total = num(1, 1000, fc.integer({ min: 1, max: 1000 }), true);
const expiresin = num(0, 3_155_760_000, fc.double({ min: 1, max: 3_155_760_000, noNaN: true }));
const username = field(fc.stringMatching(/^[A-Za-z0-9]{6,40}$/), lengths(6), lengths(40), oneOf('abcde', 'a'.repeat(41), 'user_01', 'üsername', 'user 01'));
const pwd = field(oneOf('secret1', 'päss wörd', '😀😀😀😀😀😀'), lengths(40), oneOf('12345', 'x'.repeat(41), '😀'.repeat(41)));
const email = field(
  fc.stringMatching(/^[a-z0-9]{1,20}$/).map((u) => `${u}@example.com`),
  fc.integer({ min: 240, max: 260 }).map((n) => `${'a'.repeat(n - 12)}@example.com`),
  oneOf('a@', '@b.co', 'a b@c.de', 'a@b', 'ü@exämple.com'),
);
const gender = field(oneOf('male', 'FEMALE', 'Undefined', ''), oneOf('other', 'M', 'f'));
const birthday = field(
  oneOf('1997-07-16T10:30:15.342+03:00', '1970-01-01T00:00:00.000+0000', '2000-02-29T00:00:00Z', '9999-12-31T23:59:59.999-23:59', ''),
  oneOf('1997-02-30T00:00:00Z', '1997-07-16', '1997-07-16T25:00:00Z', '+275760-09-13T00:00:00Z', '1997-07-16T10:30:15.342+24:00'),
);
const warningType = field(oneOf('CLOSED', 'duplicated', 'Wrong_Indicator', 'WRONG_INFO'), oneOf('OPEN', 'closed ', 'WRONG-INFO'));
const bool = field(oneOf('true', 'false', 'TRUE', ''), oneOf('1', 'yes', 'on'));

const POI_FIELDS: Record<string, Field> = {
  lat, lng, categories: cats, name: text(255, nastyText(255, 1)), desc: text(1024), address: text(255), cross_street: text(255),
  city: text(100), country: text(100), postal_code: text(12), phone: text(20), twitter: text(50),
  accuracy: num(0, 1e9, fc.double({ min: 0, max: 1e6, noNaN: true })),
  vaccuracy: num(0, 1e9, fc.double({ min: 0, max: 1e6, noNaN: true })),
  elevation: num(-20_000, 1_000_000, fc.double({ min: -20_000, max: 1_000_000, noNaN: true })),
  geocode: bool,
};

// ---------------------------------------------------------------- operations

interface Op {
  name: string;
  path: string;
  verbs: string[];
  params: Record<string, Field>;
  /** Parameters a clean request always carries. */
  required: string[];
  shape: Shape;
  /** Which credential the operation takes. */
  cred: 'token' | 'register' | 'login' | 'logout';
}

const op = (name: string, path: string, verbs: string[], shape: Shape, params: Record<string, Field>, required: string[] = [], cred: Op['cred'] = 'token'): Op =>
  ({ name, path, verbs, shape, params, required, cred });
const GP = ['GET', 'POST'];

export const OPS: Op[] = [
  op('register', 'users', ['POST'], 'user', { username, pwd, email, gender, birthday, expiresin }, ['username', 'pwd', 'email'], 'register'),
  op('list', 'users', ['GET'], 'users', { count: num(1, 1000, fc.integer({ min: 1, max: 1000 }), true), page: num(0, 1e6, fc.integer({ min: 0, max: 5 }), true) }),
  op('login', 'users/login', ['POST'], 'user', { username: field(oneOf('fielduser1', 'FIELD@example.com', 'fielduser1', 'nobody01')), pwd: field(oneOf('secret1'), pwd.bad), expiresin }, ['username', 'pwd'], 'login'),
  op('logout', 'users/login', ['DELETE'], 'ok', {}, [], 'logout'),
  op('show', 'users/{id}/show', GP, 'user', {}),
  op('update-member', 'users/{id}', ['PUT', 'POST'], 'ok', { pwd: field(oneOf('secret1'), pwd.bad), oldpwd: field(oneOf('secret1', 'wrong1')), gender, birthday }),
  op('delete-member', 'users/{id}', ['DELETE'], 'ok', {}),
  op('add', 'pois/add', GP, 'poi', POI_FIELDS, ['lat', 'lng', 'categories', 'name']),
  op('update', 'pois/update', GP, 'poi', { ...POI_FIELDS, poi: poiRef }, ['poi']),
  op('get', 'pois/get', GP, 'poi', { poi: poiRef }, ['poi']),
  op('near', 'pois/get_near', GP, 'pois', { lat, lng, radius: num(0, 20_037_509, fc.double({ min: 1, max: 20_037_509, noNaN: true })), categories: cats, total }, ['lat', 'lng', 'radius']),
  op('where', 'pois/get_where', GP, 'pois', { categories: cats, pois: ids(oneOf('⟦POI⟧', '1,2,3')), city: text(100, oneOf('Madrid', 'PARIS')), country: text(100), postal_code: text(12), q: text(200, oneOf('Sol', '%', '_')), total }),
  op('delete', 'pois/delete', GP, 'ok', { poi: poiRef }, ['poi']),
  op('categories', 'pois/categories', GP, 'categories', { include_system_categories: bool }),
  op('add-category', 'pois/categories/add', GP, 'category', { desc: text(100, nastyText(100, 1)) }, ['desc']),
  op('update-category', 'pois/categories/update', GP, 'category', { category: field(oneOf('⟦CATEGORY⟧', '7')), desc: text(100, nastyText(100, 1)) }, ['category', 'desc']),
  op('delete-category', 'pois/categories/delete', GP, 'ok', { category: field(oneOf('⟦CATEGORY⟧', '7')) }, ['category']),
  op('warnings', 'pois/warnings', GP, 'groups', { poi: ids(oneOf('⟦POI⟧', '⟦POI⟧,1')), type: warningType }),
  op('add-warning', 'pois/warnings/add', GP, 'warning', { ...POI_FIELDS, poi: poiRef, type: warningType }, ['poi', 'type']),
  op('close-warnings', 'pois/warnings/delete', GP, 'ok', { poi: poiRef, type: warningType }, ['poi']),
];

// ---------------------------------------------------------------- requests

const token = fc.oneof(
  { arbitrary: oneOf('⟦ADMIN⟧'), weight: 10 },
  { arbitrary: oneOf('⟦MEMBER⟧'), weight: 4 },
  { arbitrary: oneOf('⟦OTHER⟧', '⟦ADMIN:upper⟧', '⟦ADMIN:pad⟧', '⟦APIKEY⟧', '', '⟦FRESH⟧'), weight: 3 },
  { arbitrary: fc.oneof(guid, evil, huge), weight: 2 },
);
const tokenName = oneOf('access_token', 'oauth_token', 'access_token', 'oauth_token', 'ACCESS_TOKEN', 'OAuth_Token');
const apiKey = fc.oneof({ arbitrary: oneOf('⟦APIKEY⟧', '⟦OPENKEY⟧', '⟦APIKEY:upper⟧'), weight: 6 }, { arbitrary: fc.oneof(guid, evil, oneOf('')), weight: 1 });
const memberRef = oneOf('me', 'ME', '⟦MEMBERID⟧', '⟦MEMBERID:upper⟧', '⟦VICTIM⟧', '⟦VICTIM⟧', '00000000-0000-4000-8000-000000000000', 'not-a-guid');

/** Mixed-case renaming of a parameter (`expiresIn`), which must mean the same thing. */
const casing = (name: string): fc.Arbitrary<string> =>
  fc.oneof({ arbitrary: fc.constant(name), weight: 4 }, fc.constant(name.toUpperCase()), fc.constant(name.charAt(0).toUpperCase() + name.slice(1)));

const credentialParts = (o: Op): fc.Arbitrary<Array<[string, string]>> => {
  type Pairs = Array<[string, string]>;
  const none = fc.constant<Pairs>([]);
  const withToken = fc.tuple(tokenName, token).map(([n, v]): Pairs => [[n, v]]);
  if (o.cred === 'login') return fc.oneof({ arbitrary: apiKey.map((v): Pairs => [['api_key', v]]), weight: 8 }, none);
  if (o.cred === 'register') {
    return fc.oneof(withToken, apiKey.map((v): Array<[string, string]> => [['api_key', v]]), fc.tuple(withToken, apiKey).map(([t, k]): Pairs => [...t, ['api_key', k]]), none);
  }
  if (o.cred === 'logout') return fc.oneof({ arbitrary: fc.constant<Pairs>([['access_token', '⟦FRESH⟧']]), weight: 3 }, withToken, none);
  return fc.oneof({ arbitrary: withToken, weight: 9 }, none);
};

type Pair = [string, string] | undefined;
/**
 * The operation's parameters, renamed in mixed case, plus unknown ones. clean: the required ones
 * and some optional ones, all valid; oneBad: one of them invalid or missing; chaos: anything.
 */
const paramParts = (o: Op): fc.Arbitrary<Array<[string, string]>> => {
  const names = Object.keys(o.params);
  return fc.tuple(oneOf('clean', 'clean', 'clean', 'oneBad', 'oneBad', 'chaos'), fc.nat()).chain(([mode, pick]) => {
    const known = names.map((n): fc.Arbitrary<Pair> => {
      const { good, bad } = o.params[n]!;
      if (mode === 'chaos') return fc.option(fc.tuple(casing(n), fc.oneof({ arbitrary: good, weight: 3 }, { arbitrary: bad, weight: 2 })), { freq: 5, nil: undefined });
      if (mode === 'oneBad' && n === names[pick % names.length]) return fc.oneof({ arbitrary: fc.tuple(casing(n), bad), weight: 4 }, fc.constant(undefined));
      return o.required.includes(n) ? fc.tuple(casing(n), good) : fc.option(fc.tuple(casing(n), good), { freq: 2, nil: undefined });
    });
    const strangers = mode === 'chaos' ? ['api_key', 'poi', ''] : [];
    const unknown = fc.array(fc.tuple(oneOf('foo', 'x[]', 'a.b', '__proto__', 'constructor', 'toString', 'callback', ...strangers), evil), { maxLength: 2 });
    return fc.tuple(fc.tuple(...known), unknown).map(([k, u]) => {
      const given = k.filter((p): p is [string, string] => p !== undefined);
      // lat and lng go together (or the request is refused before anything else is looked at).
      const coords = given.filter(([n]) => /^(lat|lng)$/i.test(n));
      return [...(mode !== 'chaos' && coords.length === 1 ? given.filter(([n]) => !/^(lat|lng)$/i.test(n)) : given), ...u];
    });
  });
};

const placement = fc.constantFrom<Part['in']>('query', 'body');
const baseReq = fc
  .tuple(fc.constantFrom(...OPS), fc.nat(), oneOf<BodyKind>('none', 'form', 'form', 'multipart', 'json'))
  .chain(([o, verbPick, body]) =>
    fc.record({
      o: fc.constant(o),
      method: fc.constant(o.verbs[verbPick % o.verbs.length]!),
      id: memberRef,
      body: fc.constant(body),
      parts: fc.tuple(credentialParts(o), paramParts(o)).chain(([c, p]) =>
        fc.tuple(...[...c, ...p].map(([name, value]) => placement.map((where): Part => ({ name, value, in: where })))),
      ),
    }),
  )
  .map(({ o, method, id, body, parts }): Req => {
    const b: BodyKind = method === 'GET' ? 'none' : body;
    return {
      op: o.name, method, verbs: o.verbs, path: `/1/${o.path.replace('{id}', id)}.json`, body: b, transport: 'fetch', headers: [], defect: 'none', shape: o.shape,
      parts: parts.map((p) => (b === 'none' ? { ...p, in: 'query' } : p)),
    };
  });

const MALFORMED = { status: 400, description: 'EXCEPTION_MALFORMED_REQUEST' };
const BAD_ESCAPES = ['%', '%Z', '%ZZ', '%C3%28', '%E0%A4%A', '%FF', '%ED%A0%80', '%C0%AF', 'a%2', '%%'];
const BAD_UTF8 = ['\xff', '\xc3\x28', '\xed\xa0\x80', '\xc0\xaf', '\xe2\x82', 'ok\x80', '\xf8\x88\x80\x80\x80'];
const WRONG_VERBS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];

type Defect = (r: Req) => fc.Arbitrary<Req>;
const pick = <T>(xs: T[]): fc.Arbitrary<T | undefined> => (xs.length === 0 ? fc.constant(undefined) : fc.constantFrom(...xs));
const asText = (v: Val): string => (typeof v === 'string' ? v : 'raw' in v ? v.raw : JSON.stringify(v.json));

const DEFECTS: Record<string, Defect> = {
  none: (r) => fc.constant(r),
  // The same parameter twice (another case, or the other token name), same value: fine.
  dupSame: (r) =>
    pick(r.parts).chain((p) => placement.map((w) => {
      const twin = /^access_token$/i.test(p?.name ?? '') ? 'oauth_token' : /^oauth_token$/i.test(p?.name ?? '') ? 'ACCESS_TOKEN' : (p?.name ?? '').toUpperCase();
      return p ? { ...r, defect: 'dupSame', parts: [...r.parts, { ...p, name: twin, in: r.body === 'none' ? 'query' : w }] } : r;
    })),
  dupDiff: (r) =>
    fc.tuple(pick(r.parts.filter((p) => p.name !== '')), placement).map(([p, w]) => {
      const twin = p ?? { name: 'access_token', value: '⟦ADMIN⟧', in: 'query' as const };
      const other = /token/i.test(twin.name) ? (/access/i.test(twin.name) ? 'oauth_token' : 'access_token') : twin.name.toLowerCase();
      const parts = p ? r.parts : [...r.parts, twin];
      const value = `${asText(twin.value)}x`;
      // A JSON object keeps only the last of two equal keys: the twin goes to the query there.
      return { ...r, defect: 'dupDiff', parts: [...parts, { name: other, value, in: r.body === 'none' || r.body === 'json' ? 'query' : w }], expect: { status: 400, description: 'EXCEPTION_AMBIGUOUS_PARAMETER' } };
    }),
  badEscape: (r) =>
    fc.tuple(oneOf(...BAD_ESCAPES), fc.boolean(), fc.boolean()).map(([raw, inName, inQuery]) => {
      const where: Part['in'] = inQuery || r.body !== 'form' ? 'query' : 'body';
      const part: Part = inName ? { name: `x${raw}`, value: '1', in: where, rawName: true } : { name: 'name', value: { raw }, in: where };
      return { ...r, defect: 'badEscape', parts: [...r.parts, part], expect: MALFORMED };
    }),
  // Raw invalid UTF-8 in the query (not HTTP) or in a form, JSON or multipart body: refused, never replaced.
  badUtf8: (r) =>
    fc.tuple(oneOf(...BAD_UTF8), oneOf<BodyKind>('none', 'form', 'json', 'multipart')).map(([raw, wanted]) => {
      const body = r.method !== 'GET' || r.verbs.includes('POST') ? wanted : 'none';
      const method = body === 'none' || r.method !== 'GET' ? r.method : 'POST';
      const parts = r.parts.map((p) => ({ ...p, in: body === 'none' ? ('query' as const) : p.in }));
      return { ...r, defect: 'badUtf8', method, body, transport: 'raw' as const, parts: [...parts, { name: 'desc', value: { raw }, in: body === 'none' ? 'query' : 'body' }], expect: MALFORMED };
    }),
  // A JSON body whose values are not strings: scalars are read as text, arrays and objects refused.
  jsonTypes: (r) =>
    fc.tuple(pick(r.parts), oneOf<unknown>(true, false, null, 0, -1.5, 1e308, 40, [], {}, [1], { a: 1 })).map(([p, json]) => {
      const method = r.method === 'GET' && r.verbs.includes('POST') ? 'POST' : r.method;
      if (!p || method === 'GET') return r;
      const parts = r.parts.map((q): Part => (q === p ? { ...q, value: { json }, in: 'body' } : { ...q, in: 'query' }));
      return { ...r, method, defect: 'jsonTypes', body: 'json' as const, parts, ...(typeof json === 'object' && json !== null ? { expect: MALFORMED } : {}) };
    }),
  wrongVerb: (r) => {
    const allowed = OPS.filter((o) => `/1/${o.path}.json` === r.path || new RegExp(`^/1/${o.path.replace('{id}', '[^/]+')}\\.json$`).test(r.path)).flatMap((o) => o.verbs);
    const wrong = WRONG_VERBS.filter((v) => !allowed.includes(v) && !(v === 'HEAD' && allowed.includes('GET')));
    return fc.constantFrom(...wrong).map((method) => ({
      ...r, method, defect: 'wrongVerb', body: method === 'GET' || method === 'HEAD' ? 'none' : r.body,
      parts: r.parts.map((p) => (method === 'GET' || method === 'HEAD' ? { ...p, in: 'query' as const } : p)),
      expect: { status: 405, description: 'EXCEPTION_METHOD_NOT_ALLOWED' },
    }));
  },
  oddMethod: (r) => oneOf('PROPFIND', 'MKCOL', 'PURGE', 'SEARCH', 'LINK', 'REPORT', 'QUERY', 'LOCK', 'TRACE', 'CONNECT', 'FOO', 'get', 'BREW')
    .map((method) => ({ ...r, method, body: 'none' as const, parts: r.parts.map((p) => ({ ...p, in: 'query' as const })), transport: 'raw' as const, defect: 'oddMethod' })),
  contentType: (r) =>
    fc.oneof(
      fc.tuple(oneOf('text/plain', 'application/xml', 'text/xml', 'application/octet-stream', 'image/png', 'application/jsonx'), evil)
        .map(([type, bytes]) => ({ type, bytes: bytes || 'x', expect: { status: 415, description: 'EXCEPTION_UNSUPPORTED_MEDIA_TYPE' } })),
      oneOf('[1,2]', '"x"', '1', 'null', 'true', '{', '{"a":{"b":1}}', '{"a":[1]}', '', '\ufeff{}', '{"a":1}}')
        .map((bytes) => ({ type: 'application/json', bytes, expect: MALFORMED })),
      oneOf('multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=B')
        .map((type) => ({ type, bytes: 'abc', expect: MALFORMED })),
      fc.constant({ type: 'multipart/form-data; boundary=B', bytes: '--B\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nhello\r\n--B--\r\n', expect: MALFORMED }),
      fc.constant({ type: 'multipart/form-data; boundary=B', bytes: '--B\r\nContent-Disposition: form-data; name="desc"\r\n\r\ncut he', expect: MALFORMED }),
      oneOf<string | undefined>('APPLICATION/X-WWW-FORM-URLENCODED; charset=UTF-8', 'application/json; charset=utf-16', 'Multipart/Form-Data', undefined).map((type) => ({ type, bytes: 'a=1', expect: undefined })),
    ).map(({ type, bytes, expect }) => ({
      ...r, defect: 'contentType', method: r.method === 'GET' ? 'POST' : r.method, body: 'none' as const,
      parts: r.parts.map((p) => ({ ...p, in: 'query' as const })), override: { type, bytes }, expect, transport: 'raw' as const,
    })),
  oversized: (r) =>
    fc.tuple(fc.integer({ min: 65 * 1024, max: 200 * 1024 }), oneOf('application/x-www-form-urlencoded', 'application/json', 'multipart/form-data; boundary=B')).map(([n, type]) => ({
      ...r, defect: 'oversized', method: r.method === 'GET' ? 'POST' : r.method, body: 'none' as const, parts: r.parts.map((p) => ({ ...p, in: 'query' as const })),
      override: { type, bytes: type.startsWith('multipart') ? `--B\r\nContent-Disposition: form-data; name="desc"\r\n\r\n${'x'.repeat(n)}\r\n--B--\r\n` : type.endsWith('json') ? `{"desc":"${'x'.repeat(n)}"}` : `desc=${'x'.repeat(n)}` },
      expect: { status: 413, description: 'EXCEPTION_PAYLOAD_TOO_LARGE' },
    })),
  tooManyParams: (r) => fc.integer({ min: 201, max: 400 }).map((n) => ({ ...r, defect: 'tooManyParams', parts: [...Array.from({ length: n }, (_, i): Part => ({ name: `p${i}`, value: '1', in: 'query' })), ...r.parts], expect: MALFORMED })),
  longUrl: (r) => fc.integer({ min: 4_000, max: 14_000 }).map((n) => ({ ...r, defect: 'longUrl', parts: [...r.parts, { name: 'junk', value: 'u'.repeat(n), in: 'query' as const }] })),
  hugeHead: (r) => fc.tuple(fc.integer({ min: 17_500, max: 30_000 }), fc.boolean()).map(([n, inUrl]) => ({
    ...r, defect: 'hugeHead', transport: 'cut' as const, expect: MALFORMED,
    ...(inUrl ? { parts: [...r.parts, { name: 'junk', value: 'u'.repeat(n), in: 'query' as const }] } : { headers: [['X-Junk', 'h'.repeat(n)] as [string, string]] }),
  })),
  longHeader: (r) => fc.tuple(oneOf('User-Agent', 'Cookie', 'Authorization', 'X-Forwarded-For', 'Accept'), fc.integer({ min: 1, max: 8_000 })).map(([h, n]) => ({ ...r, defect: 'longHeader', headers: [[h, `v${'='.repeat(n)}`] as [string, string]] })),
  framing: (r) => fc.oneof(
    fc.integer({ min: 1, max: 500 }).map((d) => ({ lengthDelta: d })),
    oneOf('HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1.1 x', 'HTTPS/1.1').map((version) => ({ version })),
    fc.constant({ noHost: true }),
  ).map((framing) => ({
    // Only a truncated body needs the half-close of rawRequest to end it.
    ...r, defect: 'framing', framing, transport: 'lengthDelta' in framing ? ('cut' as const) : ('raw' as const), method: r.method === 'GET' ? 'POST' : r.method, body: r.body === 'none' ? 'form' : r.body,
    ...('lengthDelta' in framing ? { expect: MALFORMED } : {}),
  })),
  notHttp: (r) => fc.oneof(oneOf('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03', 'HELLO\r\n\r\n', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'GET\r\n\r\n', 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n', 'POST /1/users.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n'), fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 200 }).map((s) => `\x01${s}\r\n\r\n`))
    .map((wire) => ({ ...r, defect: 'notHttp', transport: 'cut' as const, framing: { wire }, expect: MALFORMED })),
  badPath: (r) => fc.tuple(oneOf('/2/users.json', '/v1/users.json', '/01/pois/get.json', '/1/users.xml', '/1/pois/get.JSON', '/1/pois/get.js', '/1/nothing.json', '/1/users', '/1//pois/get.json', '/1/pois/get.json/', '/1/users/%E0%A4%A/show.json', '/1/users/%ZZ.json', '/1/users/..%2F..%2Fetc/show.json', '/1/users/a%00b/show.json', '/1/users/x/reset-pass.json', '/1/pois/.json', '/index.html', '/1/', '/1/pois/get.json;x=1', `/1/pois/${'g'.repeat(5000)}.json`), fc.boolean())
    .map(([path, raw]) => ({ ...r, path, defect: 'badPath', transport: raw ? ('raw' as const) : r.transport, shape: 'none' as const })),
};

const short = (s: string): string => (s.length > 40 ? `${s.slice(0, 30)}…(${s.length})` : s);
/** How a counterexample prints: one line, long values cut. */
const describeReq = (r: Req): string =>
  `${r.op}/${r.defect} ${r.transport} ${r.method} ${r.path} ${r.body} ${JSON.stringify(r.parts.map((p) => `${p.in[0]}:${short(p.name)}=${short(asText(p.value))}`))}` +
  `${r.override ? ` override=${JSON.stringify([r.override.type, short(r.override.bytes)])}` : ''}${r.framing ? ` framing=${short(JSON.stringify(r.framing))}` : ''}` +
  `${r.headers.length ? ` headers=${JSON.stringify(r.headers.map(([k, v]) => `${k}: ${short(v)}`))}` : ''}`;

/** One request: a valid-looking call to an operation with random values, and at most one defect. */
export const requestArb: fc.Arbitrary<Req> = fc
  .tuple(baseReq, fc.constantFrom(...Object.keys(DEFECTS), 'none', 'none', 'none', 'none', 'dupSame', 'badUtf8', 'badEscape'))
  .chain(([r, d]) => DEFECTS[d]!(r))
  .map((r) => Object.assign(r, { [fc.toStringMethod]: () => describeReq(r) }));

/** The reply shape of the operation a method and path reach, 'none' when they reach none. */
export function shapeFor(method: string, target: string): Shape {
  const m = /^\/1\/(.+)\.json$/i.exec(target.split('?')[0] ?? '');
  const verb = method === 'HEAD' ? 'GET' : method;
  const reached = m ? OPS.filter((x) => new RegExp(`^${x.path.replace('{id}', '[^/]+')}$`).test(m[1]!)) : [];
  // The router takes the first path that matches, then the verb.
  return reached.find((x) => x.path === reached[0]?.path && x.verbs.includes(verb))?.shape ?? 'none';
}

// ---------------------------------------------------------------- success shapes

type Check = (v: unknown) => boolean;
const str: Check = (v) => typeof v === 'string';
const int: Check = (v) => Number.isSafeInteger(v);
const isBool: Check = (v) => typeof v === 'boolean';
const orNull = (c: Check): Check => (v) => v === null || c(v);
const inRange = (lo = -Infinity, hi = Infinity): Check => (v) => typeof v === 'number' && v >= lo && v <= hi;
const iso: Check = (v) => typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/.test(v);
const guidish: Check = (v) => typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v);
const arrayOf = (c: Check): Check => (v) => Array.isArray(v) && v.every(c);
const obj = (spec: Record<string, Check>): Check => (v) =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.entries(spec).every(([k, c]) => k in v && c((v as Record<string, unknown>)[k]));

const category = obj({ Id: int, Description: str, is_system_category: isBool });
const orText = orNull(str);
const poi = obj({
  id: int, name: str, description: orText, latitude: inRange(-90, 90), longitude: inRange(-180, 180), elevation: orNull(inRange(-20_000, 1_000_000)),
  accuracy: orNull(inRange(0)), vaccuracy: orNull(inRange(0)), registertime: iso, categories: arrayOf(category), address: orText, cross_street: orText,
  city: orText, country: orText, postal_code: orText, phone: orText, twitter: orText, last_update: iso,
  warnings: obj({ closed: int, duplicated: int, wrong_indicator: int, wrong_info: int }),
});
const user = obj({
  id: guidish, name: str, email: orText, email_verified: orNull(isBool), register: iso, provider: (v) => v === null,
  profile: obj({ birthday: orNull(iso), gender: (v) => v === 'MALE' || v === 'FEMALE' || v === 'UNDEFINED' }),
  ugroup: (v) => Array.isArray(v) && v.length === 0,
  accreditation: obj({ expirationtime: orNull(iso), client_id: guidish, access_token: orNull(guidish), refresh_token: (v) => v === null, visibledevices: arrayOf(() => true) }),
});
const warning = obj({ id: int, poi_id: int, type: (v) => ['CLOSED', 'DUPLICATED', 'WRONG_INDICATOR', 'WRONG_INFO'].includes(String(v)), user_id: orNull(guidish), timestamp: iso, data: (v) => v === null || typeof v === 'object' });
/** What a success reply of each shape must hold: every documented field, of its type. */
export const SHAPES: Record<Shape, Check> = {
  user, users: arrayOf(user), ok: obj({ code: (v) => v === 200, description: (v) => v === 'OK' }), poi, pois: arrayOf(poi), category,
  categories: arrayOf(category), warning, groups: arrayOf(obj({ current: poi, warnings: arrayOf(warning) })), none: () => false,
};

// ---------------------------------------------------------------- rendering

export interface Wire {
  method: string;
  target: string;
  headers: Array<[string, string]>;
  body?: Buffer;
}

const enc = (s: string): string => encodeURIComponent(wellFormed(s));
/** Lone surrogates become U+FFFD, as a client's UTF-8 encoder makes them. */
export const wellFormed = (s: string): string => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
const formValue = (v: Val): string => (typeof v === 'string' ? enc(v) : 'raw' in v ? v.raw : enc(String(v.json)));
const urlEncoded = (parts: Part[]): string => parts.map((p) => `${p.rawName ? p.name : enc(p.name)}=${formValue(p.value)}`).join('&');

/** Renders the request with placeholders replaced by `sub`; latin1 strings are bytes. */
export function render(r: Req, sub: (s: string) => string): Wire {
  const parts = r.parts.map((p) => ({ ...p, value: typeof p.value === 'string' ? sub(p.value) : p.value }));
  const query = urlEncoded(parts.filter((p) => p.in === 'query'));
  const inBody = parts.filter((p) => p.in === 'body');
  const target = sub(r.path) + (query ? `?${query}` : '');
  const headers = [...r.headers];
  let bytes: string | undefined;
  if (r.override) {
    bytes = r.override.bytes;
    if (r.override.type !== undefined) headers.push(['Content-Type', r.override.type]);
  } else if (r.body === 'form') {
    bytes = urlEncoded(inBody);
    headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
  } else if (r.body === 'json') {
    const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
    bytes = `{${inBody.map((p) => `${utf8(JSON.stringify(p.name))}:${typeof p.value === 'string' ? utf8(JSON.stringify(p.value)) : 'raw' in p.value ? `"${p.value.raw}"` : utf8(JSON.stringify(p.value.json))}`).join(',')}}`;
    headers.push(['Content-Type', 'application/json']);
  } else if (r.body === 'multipart') {
    const utf8 = (s: string) => Buffer.from(wellFormed(s), 'utf8').toString('latin1');
    bytes = inBody.map((p) => `--fcB0undary\r\nContent-Disposition: form-data; name="${utf8(p.name).replace(/["\r\n]/g, '_')}"\r\n\r\n${typeof p.value === 'string' ? utf8(p.value) : asText(p.value)}\r\n`).join('') + '--fcB0undary--\r\n';
    headers.push(['Content-Type', 'multipart/form-data; boundary=fcB0undary']);
  }
  return { method: r.method, target, headers, ...(bytes === undefined ? {} : { body: Buffer.from(bytes, 'latin1') }) };
}

/** The request as bytes, with Host, Content-Length and Connection: close unless told otherwise. */
export function wireBytes(w: Wire, framing: Req['framing'] = {}): Buffer {
  if (framing.wire !== undefined) return Buffer.from(framing.wire, 'latin1');
  const lines = [`${w.method} ${w.target} ${framing.version ?? 'HTTP/1.1'}`];
  if (!framing.noHost) lines.push('Host: 127.0.0.1');
  for (const [k, v] of w.headers) lines.push(`${k}: ${v}`);
  if (w.body) lines.push(`Content-Length: ${w.body.length + (framing.lengthDelta ?? 0)}`);
  lines.push('Connection: close', '', '');
  return Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), w.body ?? Buffer.alloc(0)]);
}

/**
 * Sends a complete request and reads one answer without half-closing the socket (Node drops a
 * request whose client half-closes before an asynchronous handler answers; rawRequest does that).
 */
export function exchange(port: number, bytes: Buffer, timeoutMs: number, head = false): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let data = Buffer.alloc(0);
    const done = (): boolean => {
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return false;
      const text = data.subarray(0, end).toString('latin1');
      const length = head ? ['', '0'] : /\r\ncontent-length: *(\d+)/i.exec(text);
      if (length && data.length < end + 4 + Number(length[1])) return false;
      if (!length && !socket.destroyed && !socket.readableEnded) return false;
      clearTimeout(timer);
      socket.destroy();
      const body = data.subarray(end + 4, length ? end + 4 + Number(length[1]) : undefined).toString('utf8');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), type: /\r\ncontent-type: *([^\r]*)/i.exec(text)?.[1] ?? '', body });
      return true;
    };
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer in ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => {
      data = Buffer.concat([data, c]);
      done();
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on('close', () => {
      if (!done()) resolve({ status: 0, type: '', body: data.toString('utf8') });
    });
    socket.write(bytes);
  });
}

// ---------------------------------------------------------------- round trip

/** Text a person could type, and text nobody should: fragments, any code point, grapheme clusters. */
export function nastyText(max: number, min = 0): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof(oneOf(...FRAGMENTS), fc.string({ unit: 'binary', maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 4 })), { minLength: 1, maxLength: 10 })
    .map((xs) => [...xs.join('')].slice(0, max).join(''))
    .map((s) => (min > 0 && s.trim() === '' ? `N${s}`.slice(0, Math.max(max, 1)) : s))
    .filter((s) => [...s].length >= min && [...s].length <= max);
}

// ---------------------------------------------------------------- numbers at their bounds

/** A documented numeric rule: [lo, hi], ends open or not; `soft`: past hi, the README says nothing. */
interface Range {
  lo: number;
  hi: number;
  loOpen?: boolean;
  integer?: boolean;
  soft?: boolean;
}
const LAT: Range = { lo: -90, hi: 90 };
const LNG: Range = { lo: -180, hi: 180 };
/** The README's numeric rules of the operations the number property calls. */
export const NUMBER_RULES: Record<'add' | 'near' | 'list' | 'login', Record<string, Range>> = {
  add: { lat: LAT, lng: LNG, accuracy: { lo: 0, hi: Infinity }, vaccuracy: { lo: 0, hi: Infinity }, elevation: { lo: -20_000, hi: 1_000_000 } },
  near: { lat: LAT, lng: LNG, radius: { lo: 0, hi: 20_037_509, loOpen: true }, total: { lo: 1, hi: 1000, integer: true } },
  list: { count: { lo: 1, hi: 1000, integer: true }, page: { lo: 0, hi: 1_000_000, integer: true, soft: true } },
  login: { expiresin: { lo: 0, hi: 3_155_760_000, loOpen: true } },
};
export type Verdict = 'valid' | 'invalid' | 'either';

/** `40`, `40.0`, `-3.70`, `1.0E-4`: the forms the README documents. Others are refused or read as written. */
const DOCUMENTED = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

export function verdict(text: string, r: Range): Verdict {
  const n = Number(text);
  if (Number.isNaN(n) || /[_xXbBoO,]|Infinity/.test(text)) return 'invalid';
  if (!DOCUMENTED.test(text) || text.length > 64) return 'either';
  if (!Number.isFinite(n) || n < r.lo || (r.loOpen && n === r.lo) || (r.integer && !Number.isSafeInteger(n))) return 'invalid';
  return n > r.hi ? (r.soft ? 'either' : 'invalid') : 'valid';
}

/** One numeric parameter of an operation: at, just inside and just past each bound, overflowing, or oddly written. */
export const numberCaseArb = fc
  .constantFrom(...Object.entries(NUMBER_RULES).flatMap(([op, rules]) => Object.keys(rules).map((param) => [op as keyof typeof NUMBER_RULES, param] as const)))
  .chain(([op, param]) => {
    const r = NUMBER_RULES[op][param]!;
    const hi = Number.isFinite(r.hi) ? r.hi : Number.MAX_VALUE;
    const points = [r.lo, hi, r.lo - 1, hi + 1, r.lo - 1e-7, hi + 1e-7, r.lo + 1e-7, hi - 1e-7, r.lo + 0.5, hi - 0.5, 0, -0, (r.lo + hi) / 2];
    const text = fc.oneof(
      { arbitrary: oneOf(...points).chain(numberText), weight: 4 },
      fc.double({ min: r.lo, max: hi, noNaN: true }).chain(numberText),
      oneOf('1e309', '-1e309', '1.8e308', '2E308', '4.9e-324', '1e-400', '-0', '0x10', '1_000', 'NaN', 'Infinity', '1,5', '+40', '.5', ' 40 ', '1.0E-4', '1.0E+2', '9'.repeat(70)),
    );
    return fc.record({ op: fc.constant(op), param: fc.constant(param), text, encoding: oneOf<'query' | 'form' | 'multipart' | 'json'>('query', 'form', 'multipart', 'json') });
  })
  .map((c) => ({ ...c, verdict: verdict(c.text, NUMBER_RULES[c.op][c.param]!) }));
