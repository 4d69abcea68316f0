import type { Database, Statement } from 'better-sqlite3';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { SYNCED_ENTITIES, type FieldValue, type PushedChange } from '../../../shared/sync.js';
import { CHANGE_COLUMNS, changedFields, type ChangeRow } from '../changes/change-log.js';
import type { PoiRow } from '../pois/poi-row.js';
import type { CategoryRefs } from './refs.js';

const POI_COLUMNS = POI_FIELDS.map((f) => f.column);
/** What the log holds that syncs. */
const SYNCED = new Set<string>(SYNCED_ENTITIES);
/** Columns of a POI that sync as they are (categories are translated, bookkeeping stays local). */
const AS_IS = new Set<string>([...POI_COLUMNS, 'created_by', 'registered_at']);

/** A member's fields that sync as the log records them (the password as its current hash, read when sent). */
const MEMBER_AS_IS = new Set(['username', 'email', 'gender', 'birthday', 'email_verified']);

interface MemberRow {
  id: string;
  username: string;
  email: string;
  pwd_hash: string;
  gender: string;
  birthday: string | null;
  email_verified: number;
  registered_at: number;
}

interface CategoryRow {
  id: number;
  uuid: string;
  description: string;
  created_at: number;
  deleted_at: number | null;
}

export interface OutboxPage {
  changes: PushedChange[];
  /** Where the next page starts: the last seq (or id) read, pushed or skipped. */
  last: number;
  done: boolean;
}

/**
 * What this desktop sends the central, as the protocol's changes (shared/sync.ts): first, once,
 * the data it held before its first sync, as creations; then its change log, each change with
 * the values it replaced as its base. Changes that a sync wrote (actor "sync") came from the
 * central and are not sent back.
 */
export class SyncOutbox {
  private readonly logPage: Statement<[number, number], ChangeRow>;
  private readonly categoriesPage: Statement<[string, number, number], CategoryRow>;
  private readonly poisPage: Statement<[string, number, number], PoiRow>;
  private readonly membersPage: Statement<[string, string, number], MemberRow>;
  private readonly hashOf: Statement<[string], string>;
  private readonly reportsPage: Statement<[string, number, number], { id: number; uuid: string; poi_uuid: string; type: string; member_id: string | null; data: string | null; created_at: number }>;

  constructor(
    db: Database,
    private readonly refs: CategoryRefs,
  ) {
    this.logPage = db.prepare(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`);
    this.categoriesPage = db.prepare('SELECT id, uuid, description, created_at, deleted_at FROM categories WHERE client_id = ? AND id > ? ORDER BY id LIMIT ?');
    this.poisPage = db.prepare(`SELECT * FROM pois WHERE client_id = ? AND id > ? ORDER BY id LIMIT ?`);
    this.membersPage = db.prepare(
      'SELECT id, username, email, pwd_hash, gender, birthday, email_verified, registered_at FROM members WHERE client_id = ? AND id > ? ORDER BY id LIMIT ?',
    );
    this.hashOf = db.prepare<[string], string>('SELECT pwd_hash FROM members WHERE id = ?').pluck();
    this.reportsPage = db.prepare(
      `SELECT w.id, w.uuid, p.uuid AS poi_uuid, w.type, w.member_id, w.data, w.created_at FROM warnings w CROSS JOIN pois p ON p.id = w.poi_id
       WHERE p.client_id = ? AND w.id > ? ORDER BY w.id LIMIT ?`,
    );
  }

  /** The log after `after`, this client's POIs and categories, as changes stamped with this device's operation ids. */
  fromLog(deviceId: string, clientId: string, after: number, limit: number): OutboxPage {
    const rows = this.logPage.all(after, limit);
    const changes: PushedChange[] = [];
    for (const row of rows) {
      if (row.client_id !== clientId || row.actor_kind === 'sync' || !SYNCED.has(row.entity)) continue;
      changes.push(this.fromChange(deviceId, row));
    }
    return { changes, last: rows.at(-1)?.seq ?? after, done: rows.length < limit };
  }

  /**
   * What the client holds now, as creations, a page of at most `limit` at a time: its members,
   * categories, POIs (which name both) and reports (which name their POI), in that order. Each
   * page is read whole before it is yielded, so no statement stays open while it is sent.
   */
  *snapshot(deviceId: string, clientId: string, limit: number): Generator<PushedChange[]> {
    const create = (entity: PushedChange['entity'], uuid: string, at: number, fields: PushedChange['fields']): PushedChange => ({
      op: `${deviceId}:${entity}:${uuid}`,
      entity,
      uuid,
      kind: 'create',
      fields,
      at,
    });
    yield* pages(
      (after: string) => this.membersPage.all(clientId, after, limit),
      (m) => m.id,
      '',
      limit,
      ({ id, ...m }) => create('member', id, m.registered_at, Object.fromEntries(Object.entries(m).map(([column, value]) => [column, [null, value]]))),
    );
    yield* pages(
      (after: number) => this.categoriesPage.all(clientId, after, limit),
      (c) => c.id,
      0,
      limit,
      (c) => create('category', c.uuid, c.created_at, { description: [null, c.description], deleted_at: [null, c.deleted_at] }),
    );
    yield* pages(
      (after: number) => this.poisPage.all(clientId, after, limit),
      (p) => p.id,
      0,
      limit,
      (p) => {
        const fields: PushedChange['fields'] = {};
        for (const column of [...POI_COLUMNS, 'created_by', 'registered_at'] as const) fields[column] = [null, p[column]];
        fields.categories = [null, this.refs.refs(JSON.parse(p.category_ids) as number[])];
        return create('poi', p.uuid, p.updated_at, fields);
      },
    );
    yield* pages(
      (after: number) => this.reportsPage.all(clientId, after, limit),
      (w) => w.id,
      0,
      limit,
      (w) => create('warning', w.uuid, w.created_at, { poi_uuid: [null, w.poi_uuid], type: [null, w.type], member_id: [null, w.member_id], data: [null, w.data], created_at: [null, w.created_at] }),
    );
  }

  private fromChange(deviceId: string, row: ChangeRow): PushedChange {
    if (row.entity === 'member') return this.fromMemberChange(deviceId, row);
    if (row.entity === 'warning') return this.fromReportChange(deviceId, row);
    const fields: PushedChange['fields'] = {};
    for (const [column, [base, mine]] of Object.entries(changedFields(row))) {
      if (row.entity === 'category' && (column === 'description' || column === 'deleted_at')) fields[column] = [base as FieldValue, mine as FieldValue];
      else if (column === 'category_ids') fields.categories = [this.refs.refs((base as number[] | null) ?? []), this.refs.refs((mine as number[] | null) ?? [])];
      else if (row.entity === 'poi' && AS_IS.has(column)) fields[column] = [base as FieldValue, mine as FieldValue];
    }
    // A creation's log holds no registration time: it is the creation's own.
    if (row.entity === 'poi' && row.op === 'create') fields.registered_at = [null, row.at];
    return { op: `${deviceId}:${row.seq}`, entity: row.entity === 'poi' ? 'poi' : 'category', uuid: row.entity_uuid!, kind: row.op, fields, at: row.at };
  }

  /** A report's change: its POI by uuid (the local id means nothing elsewhere). */
  private fromReportChange(deviceId: string, row: ChangeRow): PushedChange {
    const fields: PushedChange['fields'] = {};
    for (const [column, [base, mine]] of Object.entries(changedFields(row))) {
      if (column === 'poi_id') fields.poi_uuid = [typeof base === 'number' ? this.refs.poiUuid(base) : null, typeof mine === 'number' ? this.refs.poiUuid(mine) : null];
      else if (column === 'type' || column === 'member_id' || column === 'data') fields[column] = [base as FieldValue, mine as FieldValue];
    }
    if (row.op === 'create') fields.created_at = [null, row.at];
    return { op: `${deviceId}:${row.seq}`, entity: 'warning', uuid: row.entity_uuid!, kind: row.op, fields, at: row.at };
  }

  private fromMemberChange(deviceId: string, row: ChangeRow): PushedChange {
    const fields: PushedChange['fields'] = {};
    const logged = changedFields(row);
    for (const [column, [base, mine]] of Object.entries(logged)) {
      if (MEMBER_AS_IS.has(column)) fields[column] = [base as FieldValue, mine as FieldValue];
    }
    if (row.op !== 'delete' && (row.op === 'create' || 'password' in logged)) {
      // The log says only that the password changed: the hash it sends is the member's current one
      // (a member deleted since sends none that could be used: its delete follows).
      fields.pwd_hash = [null, this.hashOf.get(row.entity_id) ?? '!'];
    }
    if (row.op === 'create') fields.registered_at = [null, row.at];
    return { op: `${deviceId}:${row.seq}`, entity: 'member', uuid: row.entity_id, kind: row.op, fields, at: row.at };
  }
}

/** A table read page by page after a key, each page's rows turned into changes. */
function* pages<R, K>(read: (after: K) => R[], keyOf: (row: R) => K, first: K, limit: number, toChange: (row: R) => PushedChange): Generator<PushedChange[]> {
  for (let after = first; ; ) {
    const rows = read(after);
    if (rows.length > 0) yield rows.map(toChange);
    if (rows.length < limit) return;
    after = keyOf(rows.at(-1)!);
  }
}
