import { createHash } from 'node:crypto';
import type { Database } from 'better-sqlite3';
import { formatIso } from '../../shared/time.js';
import { poiFixture, type Fixture } from './fixture.js';
import type { Answer, Fields } from './http.js';

/**
 * Helpers of the access-matrix test: a shared world of client applications, fresh credentials
 * and fresh target resources for every cell, and snapshots of the database to show that a
 * refused request changed nothing.
 */

// ---------------------------------------------------------------------------------------------
// Snapshots

/** Each table (or the rows of one client application in it): row count and a hash of the rows. */
export type Snapshot = Record<string, { rows: number; sha256: string }>;

/** [table, SQL over the whole table, SQL over one client's rows (its id bound as @client)] */
const TABLES: ReadonlyArray<readonly [string, string, string | null]> = [
  ['clients', 'SELECT * FROM clients ORDER BY id', 'SELECT * FROM clients WHERE id = @client'],
  ['members', 'SELECT * FROM members ORDER BY id', 'SELECT * FROM members WHERE client_id = @client ORDER BY id'],
  // revoked_at included: a logout, a rotation or a password change shows here.
  ['tokens', 'SELECT * FROM tokens ORDER BY hash', 'SELECT * FROM tokens WHERE client_id = @client ORDER BY hash'],
  ['categories', 'SELECT * FROM categories ORDER BY id', 'SELECT * FROM categories WHERE client_id = @client ORDER BY id'],
  ['pois', 'SELECT * FROM pois ORDER BY id', 'SELECT * FROM pois WHERE client_id = @client ORDER BY id'],
  [
    'poi_categories',
    'SELECT * FROM poi_categories ORDER BY poi_id, category_id',
    'SELECT * FROM poi_categories WHERE poi_id IN (SELECT id FROM pois WHERE client_id = @client) ORDER BY poi_id, category_id',
  ],
  [
    'warnings',
    'SELECT * FROM warnings ORDER BY id',
    'SELECT * FROM warnings WHERE poi_id IN (SELECT id FROM pois WHERE client_id = @client) ORDER BY id',
  ],
  [
    'pois_rtree',
    'SELECT * FROM pois_rtree ORDER BY id',
    'SELECT * FROM pois_rtree WHERE id IN (SELECT id FROM pois WHERE client_id = @client) ORDER BY id',
  ],
  ['settings', 'SELECT * FROM settings ORDER BY key', null],
];

/** The whole database, or only what belongs to one client application. */
export function snapshot(db: Database, clientId?: string): Snapshot {
  const out: Snapshot = {};
  for (const [table, all, ofClient] of TABLES) {
    if (clientId !== undefined && ofClient === null) continue;
    const rows = clientId === undefined ? db.prepare(all).all() : db.prepare(ofClient!).all({ client: clientId });
    const text = JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    out[table] = { rows: rows.length, sha256: createHash('sha256').update(text).digest('hex') };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The world every cell shares

export interface World {
  f: Fixture;
  /** Client A: the one whose resources every cell targets. */
  clientA: string;
  clientB: string;
  /** A third client, with Implicit Flow on. */
  openClient: string;
  /** The member of A whose tokens are the member credentials. */
  login: { username: string; pwd: string };
}

export async function openWorld(): Promise<World> {
  const f = await poiFixture();
  const clientB = f.t.core.tokens.resolve(f.otherAdmin).clientId;
  const openClient = f.t.core.clients.create({ name: 'Open', implicitFlow: true }).client_id;
  return { f, clientA: f.apiKey, clientB, openClient, login: { username: 'fielduser1', pwd: 'secret1' } };
}

// ---------------------------------------------------------------------------------------------
// Credentials, fresh for every cell: a cell may revoke the one it uses (logout).

export const TOKEN_KINDS = ['none', 'malformed', 'expired', 'revoked', 'member', 'other admin', 'admin'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

export const TOKEN_LABEL: Record<TokenKind, string> = {
  none: 'no token',
  malformed: 'malformed token',
  expired: 'expired member token',
  revoked: 'revoked member token',
  member: 'member token',
  'other admin': "another client's admin token",
  admin: 'admin token',
};

const accessToken = (a: Answer): string => {
  const accreditation = a.json.accreditation as { access_token?: unknown } | undefined;
  if (a.status !== 200 || typeof accreditation?.access_token !== 'string') throw new Error(`no token: ${JSON.stringify(a.body)}`);
  return accreditation.access_token;
};

/** A real login of the member of A, as a client does it. */
export async function memberLogin(w: World, extra: Fields = {}): Promise<string> {
  return accessToken(await w.f.t.post('/1/users/login.json', { api_key: w.clientA, ...w.login, ...extra }));
}

export async function tokenOf(w: World, kind: TokenKind, adminA: string): Promise<string | undefined> {
  const t = w.f.t;
  switch (kind) {
    case 'none':
      return undefined;
    case 'malformed':
      return 'not-a-token';
    case 'expired': {
      const token = await memberLogin(w, { expiresin: 60 });
      t.core.clock.advance(61_000);
      return token;
    }
    case 'revoked': {
      const token = await memberLogin(w);
      const out = await t.call('DELETE', '/1/users/login.json', { access_token: token }, 'query');
      if (out.status !== 200) throw new Error(`logout failed: ${JSON.stringify(out.body)}`);
      return token;
    }
    case 'member':
      return memberLogin(w);
    case 'other admin':
      return t.core.clients.rotateAdminToken(w.clientB);
    case 'admin':
      return adminA;
  }
}

// ---------------------------------------------------------------------------------------------
// Target resources of A, fresh for every cell (a cell may delete or change them)

export type Need = 'poi' | 'category' | 'warning' | 'member';

export interface Cell {
  n: number;
  /** A's administrator token, rotated for this cell (the previous cell may have logged it out). */
  adminA: string;
  poi: number;
  category: number;
  member: string;
  /** Strings only A's own tokens may read: they must not appear in refused or foreign replies. */
  secrets: string[];
}

let counter = 0;

const must = (a: Answer, what: string): Record<string, unknown> => {
  if (a.status !== 200) throw new Error(`${what} failed: ${JSON.stringify(a.body)}`);
  return a.json;
};

/** A unique birthday per cell, so that every allowed member update really changes a row. */
export const birthdayOf = (n: number): string => formatIso(Date.UTC(1990, 0, 1) + n * 1000);

export async function prepareCell(w: World, needs: readonly Need[]): Promise<Cell> {
  const n = ++counter;
  const t = w.f.t;
  const adminA = t.core.clients.rotateAdminToken(w.clientA);
  const secrets = [w.login.username, 'field@example.com'];
  const cell: Cell = { n, adminA, poi: 0, category: 0, member: '', secrets };
  const pois = (op: string, fields: Fields) => t.get(`/1/pois/${op}.json`, { oauth_token: adminA, ...fields });
  if (needs.includes('category') || needs.includes('poi') || needs.includes('warning')) {
    const desc = `cat-secret-${n}`;
    cell.category = must(await pois('categories/add', { desc }), 'category add').Id as number;
    secrets.push(desc);
  }
  if (needs.includes('poi') || needs.includes('warning')) {
    const name = `poi-secret-${n}`;
    const poi = must(await pois('add', { lat: 40.4169, lng: -3.7035, name, categories: cell.category }), 'POI add');
    cell.poi = poi.id as number;
    secrets.push(name);
  }
  if (needs.includes('warning')) must(await pois('warnings/add', { poi: cell.poi, type: 'WRONG_INFO', name: `warn-secret-${n}` }), 'warning add');
  if (needs.includes('warning')) secrets.push(`warn-secret-${n}`);
  if (needs.includes('member')) {
    const username = `target${n}secret`;
    const email = `target${n}@secret.example`;
    const r = await t.post('/1/users.json', { access_token: adminA, username, pwd: 'secret1', email });
    cell.member = must(r, 'register').id as string;
    secrets.push(username, email);
  }
  return cell;
}
