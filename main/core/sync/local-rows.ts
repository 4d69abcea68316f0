import type { Database, Statement } from 'better-sqlite3';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { fieldNames, sortedRefs, type FieldValue, type SyncedEntity } from '../../../shared/sync-entities.js';
import type { CategoryRefs } from './refs.js';

/** A synced row as the protocol carries it (shared/sync-entities.ts): its uuid and its fields by their synced names. */
export interface WireRow {
  uuid: string;
  fields: Record<string, FieldValue>;
}

const POI_COLUMNS = POI_FIELDS.map((f) => f.column);

type Raw = Record<string, FieldValue>;

/**
 * This desktop's synced rows of one client, read as the protocol names their fields: a POI's
 * categories as references (a client category's uuid, `system:N`), a report's POI by its uuid.
 * Every lookup is within the client: a uuid of another client's row is not found here, so
 * nothing a pull brings for one client reaches another's rows.
 */
export class LocalRows {
  private readonly one: Record<SyncedEntity, Statement<[string, string], Raw>>;
  private readonly many: Record<SyncedEntity, Statement<[string, string], Raw>>;
  private readonly page: Record<SyncedEntity, Statement<[string, string | number, number], Raw & { k: string | number }>>;
  private readonly owner: Record<SyncedEntity, Statement<[string], string | null>>;

  constructor(
    db: Database,
    private readonly refs: CategoryRefs,
  ) {
    const poi = `uuid, ${POI_COLUMNS.join(', ')}, category_ids, created_by, registered_at`;
    const member = 'id AS uuid, username, email, pwd_hash, gender, birthday, email_verified, registered_at';
    const category = 'uuid, description, deleted_at';
    const warning = 'w.uuid, p.uuid AS poi_uuid, w.type, w.member_id, w.data, w.created_at';
    this.one = {
      poi: db.prepare(`SELECT ${poi} FROM pois WHERE uuid = ? AND client_id = ?`),
      category: db.prepare(`SELECT ${category} FROM categories WHERE uuid = ? AND client_id = ?`),
      member: db.prepare(`SELECT ${member} FROM members WHERE id = ? AND client_id = ?`),
      warning: db.prepare(`SELECT ${warning} FROM warnings w CROSS JOIN pois p ON p.id = w.poi_id WHERE w.uuid = ? AND p.client_id = ?`),
    };
    // Many at once (a JSON array of uuids): one statement for a page of the outbox, not one per row.
    // CROSS JOIN keeps SQLite walking the list into the uuid index (with IN it scanned the client's rows).
    const among = (table: string, key: string): string => `FROM (SELECT value AS wanted FROM json_each(?)) j CROSS JOIN ${table} ON ${key} = j.wanted`;
    this.many = {
      poi: db.prepare(`SELECT ${poi} ${among('pois', 'pois.uuid')} WHERE client_id = ?`),
      category: db.prepare(`SELECT ${category} ${among('categories', 'categories.uuid')} WHERE client_id = ?`),
      member: db.prepare(`SELECT ${member} ${among('members', 'members.id')} WHERE client_id = ?`),
      warning: db.prepare(`SELECT ${warning} ${among('warnings w', 'w.uuid')} CROSS JOIN pois p ON p.id = w.poi_id WHERE p.client_id = ?`),
    };
    // Pages in a stable order after a key, for the snapshot of a first sync.
    this.page = {
      poi: db.prepare(`SELECT id AS k, ${poi} FROM pois WHERE client_id = ? AND id > ? ORDER BY id LIMIT ?`),
      category: db.prepare(`SELECT id AS k, ${category} FROM categories WHERE client_id = ? AND id > ? ORDER BY id LIMIT ?`),
      member: db.prepare(`SELECT id AS k, ${member} FROM members WHERE client_id = ? AND id > ? ORDER BY id LIMIT ?`),
      warning: db.prepare(`SELECT w.id AS k, ${warning} FROM warnings w CROSS JOIN pois p ON p.id = w.poi_id WHERE p.client_id = ? AND w.id > ? ORDER BY w.id LIMIT ?`),
    };
    this.owner = {
      poi: db.prepare<[string], string | null>('SELECT client_id FROM pois WHERE uuid = ?').pluck(),
      category: db.prepare<[string], string | null>('SELECT coalesce(client_id, \'(system)\') FROM categories WHERE uuid = ?').pluck(),
      member: db.prepare<[string], string | null>('SELECT client_id FROM members WHERE id = ?').pluck(),
      warning: db.prepare<[string], string | null>('SELECT p.client_id FROM warnings w CROSS JOIN pois p ON p.id = w.poi_id WHERE w.uuid = ?').pluck(),
    };
  }

  /** The row as the protocol carries it, or undefined when the client has no such row here. */
  get(entity: SyncedEntity, clientId: string, uuid: string): WireRow | undefined {
    const raw = this.one[entity].get(uuid, clientId);
    return raw ? this.wire(entity, raw) : undefined;
  }

  /** Many rows of one entity at once, by uuid (the ones the client does not have here are absent). */
  getMany(entity: SyncedEntity, clientId: string, uuids: readonly string[]): Map<string, WireRow> {
    const found = new Map<string, WireRow>();
    for (const raw of this.many[entity].all(JSON.stringify(uuids), clientId)) {
      const row = this.wire(entity, raw);
      found.set(row.uuid, row);
    }
    return found;
  }

  /** The client that holds a row of this uuid here, when it is another's (so a pull must not touch it). */
  heldByAnother(entity: SyncedEntity, clientId: string, uuid: string): boolean {
    const owner = this.owner[entity].get(uuid);
    return owner !== undefined && owner !== clientId;
  }

  /** The client's rows of one entity, a page at a time after a key (the first call's key: 0 or ''). */
  *pages(entity: SyncedEntity, clientId: string, limit: number): Generator<WireRow[]> {
    for (let after: string | number = entity === 'member' ? '' : 0; ; ) {
      const raws = this.page[entity].all(clientId, after, limit);
      if (raws.length > 0) yield raws.map((r) => this.wire(entity, r));
      if (raws.length < limit) return;
      after = raws.at(-1)!.k;
    }
  }

  private wire(entity: SyncedEntity, raw: Raw): WireRow {
    const fields: Record<string, FieldValue> = {};
    for (const name of fieldNames(entity)) fields[name] = raw[name] ?? null;
    if (entity === 'poi') fields.categories = sortedRefs(this.refs.refs(JSON.parse(String(raw.category_ids)) as number[]));
    return { uuid: String(raw.uuid), fields };
  }
}
