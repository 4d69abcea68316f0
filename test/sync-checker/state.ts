import type { Database } from 'better-sqlite3';
import type { Pool } from 'pg';
import { POI_FIELDS } from '../../shared/poi-fields.js';

/**
 * What the checker compares between the desktops and the central: a client's rows by entity and
 * uuid (integer ids are each desktop's own), each as its synced fields in one representation.
 * Categories of a POI are their sync references (a client category's uuid, `system:N`), sorted.
 * A row that does not exist (never created, or deleted) is absent from the map; the oracle calls
 * that value ABSENT.
 */
export type Value = string | number | null | readonly string[];
export type Row = Record<string, Value>;
export type State = Map<string, Row>;

/** A field of a row that is not there: never created, or deleted. */
export const ABSENT = '\u0000absent';

export const POI_COMPARED = [...POI_FIELDS.map((f) => f.column), 'categories', 'created_by', 'registered_at'] as const;
export const MEMBER_COMPARED = ['username', 'email', 'gender', 'birthday', 'email_verified', 'pwd_hash', 'registered_at'] as const;
export const CATEGORY_COMPARED = ['description', 'deleted'] as const;

export const keyOf = (entity: string, uuid: string): string => `${entity}:${uuid}`;
export const sameValue = (a: Value | undefined, b: Value | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A desktop's rows of one client, read straight from its SQLite file. */
export function desktopState(db: Database, clientId: string): State {
  const state: State = new Map();
  const categoryRef = new Map<number, string>();
  for (const c of db.prepare<[], { id: number; uuid: string; client_id: string | null }>('SELECT id, uuid, client_id FROM categories').all()) {
    categoryRef.set(c.id, c.client_id === null ? `system:${c.id}` : c.uuid);
  }
  for (const c of db.prepare<[string], { uuid: string; description: string; deleted_at: number | null }>('SELECT uuid, description, deleted_at FROM categories WHERE client_id = ?').all(clientId)) {
    state.set(keyOf('category', c.uuid), { description: c.description, deleted: c.deleted_at === null ? 0 : 1 });
  }
  for (const m of db.prepare<[string], Record<string, Value>>(`SELECT id, ${MEMBER_COMPARED.join(', ')} FROM members WHERE client_id = ?`).all(clientId)) {
    const { id, ...fields } = m;
    state.set(keyOf('member', String(id)), fields);
  }
  for (const p of db.prepare<[string], Record<string, Value>>(`SELECT uuid, ${POI_FIELDS.map((f) => f.column).join(', ')}, category_ids, created_by, registered_at FROM pois WHERE client_id = ?`).all(clientId)) {
    const { uuid, category_ids, ...fields } = p;
    const refs = (JSON.parse(String(category_ids)) as number[]).map((id) => categoryRef.get(id) ?? `missing:${id}`).sort();
    state.set(keyOf('poi', String(uuid)), { ...fields, categories: refs });
  }
  return state;
}

/** The central's live rows of one client (and its categories, deleted ones included, as desktops keep them). */
export async function centralState(pool: Pool, clientId: string): Promise<State> {
  const state: State = new Map();
  const categories = await pool.query<{ uuid: string; description: string; deleted: boolean }>('SELECT uuid::text, description, deleted_at IS NOT NULL AS deleted FROM categories WHERE client_id = $1', [clientId]);
  for (const c of categories.rows) state.set(keyOf('category', c.uuid), { description: c.description, deleted: c.deleted ? 1 : 0 });
  const members = await pool.query<Record<string, Value> & { uuid: string }>(
    `SELECT uuid::text, username, email, gender, birthday, email_verified::int AS email_verified, pwd_hash, round(extract(epoch FROM registered_at) * 1000)::float8 AS registered_at
     FROM members WHERE client_id = $1 AND deleted_at IS NULL`,
    [clientId],
  );
  for (const { uuid, ...fields } of members.rows) state.set(keyOf('member', uuid), fields);
  const pois = await pool.query<Record<string, Value> & { uuid: string; categories: string[] }>(
    `SELECT uuid::text, ${POI_FIELDS.map((f) => f.column).join(', ')}, categories, created_by::text, round(extract(epoch FROM registered_at) * 1000)::float8 AS registered_at
     FROM pois WHERE client_id = $1 AND deleted_at IS NULL`,
    [clientId],
  );
  for (const { uuid, categories: refs, ...fields } of pois.rows) state.set(keyOf('poi', uuid), { ...fields, categories: [...refs].sort() });
  return state;
}

/** The fields the checker follows for an entity. */
export const comparedOf = (key: string): readonly string[] =>
  key.startsWith('poi:') ? POI_COMPARED : key.startsWith('member:') ? MEMBER_COMPARED : CATEGORY_COMPARED;

/** A field's value in a state, ABSENT when its row is not there. */
export const valueIn = (state: State, key: string, field: string): Value => {
  const row = state.get(key);
  return row ? (row[field] ?? null) : ABSENT;
};

/** Where two states differ, as lines a person can read (at most `limit`). */
export function differences(a: State, b: State, nameA: string, nameB: string, skip: ReadonlySet<string> = new Set(), limit = 10): string[] {
  const out: string[] = [];
  for (const key of new Set([...a.keys(), ...b.keys()])) {
    if (skip.has(key)) continue;
    for (const field of comparedOf(key)) {
      const x = valueIn(a, key, field);
      const y = valueIn(b, key, field);
      if (!sameValue(x, y)) out.push(`${key} ${field}: ${nameA} ${show(x)}, ${nameB} ${show(y)}`);
      if (x === ABSENT || y === ABSENT) break;
    }
    if (out.length >= limit) break;
  }
  return out;
}

export const show = (v: Value | undefined): string => (v === ABSENT ? '(absent)' : JSON.stringify(v ?? null));
