import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERRORS, type ErrorCode } from '../../shared/errors.js';
import {
  TOKEN_KINDS,
  TOKEN_LABEL,
  birthdayOf,
  memberLogin,
  openWorld,
  prepareCell,
  snapshot,
  tokenOf,
  type Cell,
  type Need,
  type TokenKind,
  type World,
} from '../support/access.js';
import type { Answer, Fields } from '../support/http.js';

/**
 * Every operation of the API against every kind of credential, as README.md documents it.
 * Each cell gets fresh credentials and fresh resources of client A, then one request; a refused
 * request must leave every table as it was and reply a bare error; an allowed one must change
 * something if it writes and nothing if it reads; another client's administrator never touches
 * (nor reads) A's rows.
 */

type Code = 'OK' | ErrorCode;
type Row = readonly [Code, Code, Code, Code, Code, Code, Code];

interface Op {
  name: string;
  needs: Need[];
  writes: boolean;
  send(w: World, c: Cell, token: string | undefined): Promise<Answer>;
  /** Optional extra check of an allowed reply. */
  check?(w: World, c: Cell, a: Answer, kind: TokenKind): void;
}

const users = (token: string | undefined): Fields => (token === undefined ? {} : { access_token: token });
const pois = (token: string | undefined): Fields => (token === undefined ? {} : { oauth_token: token });
const poiOp = (path: string, fields: (c: Cell) => Fields) => (w: World, c: Cell, token: string | undefined) =>
  w.f.t.get(`/1/pois/${path}.json`, { ...pois(token), ...fields(c) });

// prettier-ignore
const REQ = 'TOKEN_REQUIRED', BAD = 'INVALID_TOKEN', EXP = 'TOKEN_EXPIRED', FORB = 'FORBIDDEN', NF = 'NOT_FOUND', OK = 'OK';

/**
 * The matrix. Columns: no token, malformed, expired member token, revoked member token,
 * member token, another client's admin token, admin token.
 */
// prettier-ignore
const MATRIX: ReadonlyArray<readonly [Op, Row]> = [
  [{ name: 'register (admin token)', needs: [], writes: true,
     send: (w, c, k) => w.f.t.post('/1/users.json', { ...users(k), username: `reg${c.n}user`, pwd: 'secret1', email: `reg${c.n}@example.com` }) },
                                  [REQ, BAD, EXP, BAD, FORB, OK, OK]], // another client's admin registers in its own client
  [{ name: 'logout', needs: [], writes: true,
     send: (w, _c, k) => w.f.t.call('DELETE', '/1/users/login.json', users(k), 'query') },
                                  [REQ, BAD, EXP, BAD, OK, FORB, FORB]], // a member token revokes itself; admin tokens are rotated, not logged out
  [{ name: 'list members', needs: [], writes: false, send: (w, _c, k) => w.f.t.get('/1/users.json', users(k)) },
                                  [REQ, BAD, EXP, BAD, FORB, OK, OK]], // another client's admin lists its own
  [{ name: 'show member', needs: ['member'], writes: false, send: (w, c, k) => w.f.t.get(`/1/users/${c.member}/show.json`, users(k)),
     check: (_w, _c, a, kind) => {
       if (kind === 'member') expect(a.json, 'a member sees no private field of another').toMatchObject({ email: null, email_verified: null });
     } },
                                  [REQ, BAD, EXP, BAD, OK, NF, OK]],
  [{ name: 'show me', needs: [], writes: false, send: (w, _c, k) => w.f.t.get('/1/users/me/show.json', users(k)) },
                                  [REQ, BAD, EXP, BAD, OK, NF, NF]], // an admin token is no member
  [{ name: 'update member', needs: ['member'], writes: true,
     send: (w, c, k) => w.f.t.call('PUT', `/1/users/${c.member}.json`, { ...users(k), birthday: birthdayOf(c.n) }) },
                                  [REQ, BAD, EXP, BAD, FORB, NF, OK]], // a member may only update itself
  [{ name: 'update me', needs: [], writes: true,
     send: (w, c, k) => w.f.t.call('PUT', '/1/users/me.json', { ...users(k), birthday: birthdayOf(c.n) }) },
                                  [REQ, BAD, EXP, BAD, OK, NF, NF]],
  [{ name: 'delete member', needs: ['member'], writes: true,
     send: (w, c, k) => w.f.t.call('DELETE', `/1/users/${c.member}.json`, users(k), 'query') },
                                  [REQ, BAD, EXP, BAD, FORB, NF, OK]],
  [{ name: 'POI add', needs: ['category'], writes: true,
     send: poiOp('add', (c) => ({ lat: 41.39, lng: 2.17, name: `added-${c.n}`, categories: c.category })) },
                                  [REQ, BAD, EXP, BAD, OK, NF, OK]], // A's own category: 404 for another client
  [{ name: 'POI update', needs: ['poi'], writes: true, send: poiOp('update', (c) => ({ poi: c.poi, name: `renamed-${c.n}` })) },
                                  [REQ, BAD, EXP, BAD, FORB, NF, OK]],
  [{ name: 'POI get', needs: ['poi'], writes: false, send: poiOp('get', (c) => ({ poi: c.poi })) },
                                  [REQ, BAD, EXP, BAD, OK, NF, OK]],
  [{ name: 'POI get_near', needs: ['poi'], writes: false, send: poiOp('get_near', () => ({ lat: 40.4169, lng: -3.7035, radius: 1000 })) },
                                  [REQ, BAD, EXP, BAD, OK, OK, OK]], // another client finds none of A's
  [{ name: 'POI get_where', needs: ['poi'], writes: false, send: poiOp('get_where', () => ({})) },
                                  [REQ, BAD, EXP, BAD, OK, OK, OK]],
  [{ name: 'POI delete', needs: ['poi'], writes: true, send: poiOp('delete', (c) => ({ poi: c.poi })) },
                                  [REQ, BAD, EXP, BAD, FORB, NF, OK]],
  [{ name: 'categories list', needs: ['category'], writes: false, send: poiOp('categories', () => ({})) },
                                  [REQ, BAD, EXP, BAD, OK, OK, OK]],
  [{ name: 'category add', needs: [], writes: true, send: poiOp('categories/add', (c) => ({ desc: `new-${c.n}` })) },
                                  [REQ, BAD, EXP, BAD, FORB, OK, OK]], // another client's admin adds to its own
  [{ name: 'category update', needs: ['category'], writes: true,
     send: poiOp('categories/update', (c) => ({ category: c.category, desc: `renamed-${c.n}` })) },
                                  [REQ, BAD, EXP, BAD, FORB, NF, OK]],
  [{ name: 'category delete', needs: ['category'], writes: true, send: poiOp('categories/delete', (c) => ({ category: c.category })) },
                                  [REQ, BAD, EXP, BAD, FORB, NF, OK]],
  [{ name: 'warning add', needs: ['poi'], writes: true, send: poiOp('warnings/add', (c) => ({ poi: c.poi, type: 'CLOSED' })) },
                                  [REQ, BAD, EXP, BAD, OK, NF, OK]],
  [{ name: 'warnings list', needs: ['warning'], writes: false, send: poiOp('warnings', () => ({})) },
                                  [REQ, BAD, EXP, BAD, OK, OK, OK]],
  [{ name: 'warnings delete', needs: ['warning'], writes: true, send: poiOp('warnings/delete', (c) => ({ poi: c.poi })) },
                                  [REQ, BAD, EXP, BAD, FORB, NF, OK]],
];

/** One cell: how to get its credential (before the snapshot) and what it sends. */
interface Case {
  name: string;
  needs: Need[];
  writes: boolean;
  expected: Code;
  /** Another client's credential: A's rows must stay as they were even when it is allowed. */
  foreign: boolean;
  /** Gets the credential (before the snapshot: a login writes a token) and returns the request. */
  arm(w: World, c: Cell): Promise<() => Promise<Answer>>;
  check?(w: World, c: Cell, a: Answer): void;
}

const label = (code: Code): string => (code === 'OK' ? '200' : `${ERRORS[code].status} ${ERRORS[code].description}`);

const tokenCases: Case[] = MATRIX.flatMap(([op, row]) =>
  TOKEN_KINDS.map((kind, i): Case => {
    const expected = row[i]!;
    return {
      name: `${op.name} · ${TOKEN_LABEL[kind]} → ${label(expected)}`,
      needs: op.needs,
      writes: op.writes,
      expected,
      foreign: kind === 'other admin',
      arm: async (w, c) => {
        const token = await tokenOf(w, kind, c.adminA);
        return () => op.send(w, c, token);
      },
      ...(op.check ? { check: (w: World, c: Cell, a: Answer) => op.check!(w, c, a, kind) } : {}),
    };
  }),
);

/** Register and login have their own credentials: the api_key (README, Operations). */
const newMember = (c: Cell): Fields => ({ username: `key${c.n}user`, pwd: 'secret1', email: `key${c.n}@example.com` });
const register = (w: World, c: Cell, creds: Fields) => w.f.t.post('/1/users.json', { ...creds, ...newMember(c) });
const login = (w: World, _c: Cell, creds: Fields) => w.f.t.post('/1/users/login.json', { ...w.login, ...creds });

// prettier-ignore
const KEY_CASES: ReadonlyArray<readonly [string, Code, (w: World, c: Cell) => Promise<Fields> | Fields]> = [
  ['register (api_key) · neither token nor api_key', REQ, () => ({})],
  ['register (api_key) · malformed api_key', 'INVALID_API_KEY', () => ({ api_key: 'not-a-token' })],
  ['register (api_key) · unknown api_key', 'INVALID_API_KEY', () => ({ api_key: randomUUID() })],
  ['register (api_key) · api_key of a client without Implicit Flow', 'IMPLICIT_FLOW_DISABLED', (w) => ({ api_key: w.clientA })],
  ['register (api_key) · member token with that api_key', 'IMPLICIT_FLOW_DISABLED',
    async (w) => ({ api_key: w.clientA, access_token: await memberLogin(w) })],
  ['register (api_key) · admin token with another client\'s api_key', 'INVALID_API_KEY',
    (w, c) => ({ api_key: w.clientB, access_token: c.adminA })],
  ['register (api_key) · admin token with its own api_key', OK, (w, c) => ({ api_key: w.clientA, access_token: c.adminA })],
  ['register (api_key) · api_key of an Implicit Flow client', OK, (w) => ({ api_key: w.openClient })],
  ['login · no api_key', 'MISSING_PARAMETER', () => ({})],
  ['login · admin token instead of api_key', 'MISSING_PARAMETER', (_w, c) => ({ access_token: c.adminA })],
  ['login · malformed api_key', 'INVALID_API_KEY', () => ({ api_key: 'not-a-token' })],
  ['login · unknown api_key', 'INVALID_API_KEY', () => ({ api_key: randomUUID() })],
  ['login · api_key of another client', 'INVALID_CREDENTIALS', (w) => ({ api_key: w.clientB })],
  ['login · right api_key, wrong password', 'INVALID_CREDENTIALS', (w) => ({ api_key: w.clientA, pwd: 'wrong-password' })],
  ['login · right api_key and password', OK, (w) => ({ api_key: w.clientA })],
];

const keyCases: Case[] = KEY_CASES.map(([name, expected, credentials]) => ({
  name: `${name} → ${label(expected)}`,
  needs: [],
  writes: true,
  expected,
  foreign: false,
  arm: async (w, c) => {
    const creds = await credentials(w, c);
    const send = name.startsWith('login') ? login : register;
    return () => send(w, c, creds);
  },
}));

const ERROR_KEYS = ['code', 'description', 'message', 'parameter'];

let w: World;
beforeAll(async () => {
  w = await openWorld();
});
afterAll(() => w.f.t.close());

describe('access matrix', () => {
  it.each([...tokenCases, ...keyCases].map((k) => [k.name, k] as const))('%s', async (_name, k) => {
    const db = w.f.t.core.db;
    const cell = await prepareCell(w, k.needs);
    const request = await k.arm(w, cell);
    const before = snapshot(db);
    const beforeA = snapshot(db, w.clientA);

    const a = await request();

    const after = snapshot(db);
    const text = JSON.stringify(a.body);
    const leaked = cell.secrets.filter((s) => text.includes(s));
    if (k.expected === 'OK') {
      expect(a.status, text).toBe(200);
      expect(text).not.toMatch(/"description":"EXCEPTION_/);
      if (k.writes) expect(after, 'an allowed write changes something').not.toEqual(before);
      else expect(after, 'a read changes nothing').toEqual(before);
      if (k.foreign) {
        expect(snapshot(db, w.clientA), "another client's admin changed client A's rows").toEqual(beforeA);
        expect(leaked, "another client's admin read client A's data").toEqual([]);
      }
      k.check?.(w, cell, a);
    } else {
      const { status, description } = ERRORS[k.expected];
      expect({ status: a.status, description: a.json.description }, text).toEqual({ status, description });
      expect(a.json.code).toBe(status);
      expect(Object.keys(a.json).filter((key) => !ERROR_KEYS.includes(key)), 'a refusal carries only the error').toEqual([]);
      expect(leaked, 'a refusal reads nothing').toEqual([]);
      expect(after, 'a refused request changes nothing').toEqual(before);
    }
  });
});
