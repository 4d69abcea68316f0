import type { Database, Statement } from 'better-sqlite3';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { SYNCED_FIELDS, type PulledRow } from '../../../shared/sync.js';
import { memberKey } from '../members/members.js';
import type { Clock } from '../clock.js';
import { categoryIds, poiFields, type PoiRow } from '../pois/poi-row.js';
import type { PoiStore } from '../pois/poi-store.js';
import type { WritePath } from '../store/write-path.js';
import type { CategoryRefs } from './refs.js';

const SYNC = { kind: 'sync' } as const;

/** A member's columns as the central sends them (its folded keys are derived here, as the members store does). */
const MEMBER_FIELDS = SYNCED_FIELDS.member;

interface LocalCategory {
  id: number;
  description: string;
  deleted_at: number | null;
}

/**
 * Applies what a pull brought, through the one write path as the actor "sync" (so history says
 * so, and the outbox does not send it back), all rows of a page in one transaction. Applying a row
 * this desktop already holds as it is changes nothing: a page applied twice (a sync killed after
 * applying it, before keeping its cursor) is harmless.
 */
export class SyncInbox {
  private readonly poiByUuid: Statement<[string], PoiRow>;
  private readonly categoryByUuid: Statement<[string], LocalCategory>;
  private readonly insertCategory: Statement;
  private readonly updateCategory: Statement;
  private readonly memberExists: Statement<[string], number>;
  private readonly memberById: Statement<[string], Record<(typeof MEMBER_FIELDS)[number], unknown>>;
  private readonly insertMember: Statement;
  private readonly updateMember: Statement;
  private readonly deleteMember: Statement<[string]>;
  private readonly reportByUuid: Statement<[string], number>;
  private readonly insertReport: Statement;
  private readonly updateReport: Statement;
  private readonly deleteReport: Statement<[number]>;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly store: PoiStore,
    private readonly refs: CategoryRefs,
  ) {
    this.poiByUuid = db.prepare('SELECT * FROM pois WHERE uuid = ?');
    this.categoryByUuid = db.prepare('SELECT id, description, deleted_at FROM categories WHERE uuid = ?');
    this.insertCategory = db.prepare('INSERT INTO categories (uuid, client_id, description, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.updateCategory = db.prepare('UPDATE categories SET description = ?, deleted_at = ?, updated_at = ? WHERE id = ?');
    this.memberExists = db.prepare<[string], number>('SELECT count(*) FROM members WHERE id = ?').pluck();
    this.memberById = db.prepare(`SELECT ${MEMBER_FIELDS.join(', ')} FROM members WHERE id = ?`);
    this.insertMember = db.prepare(
      `INSERT INTO members (id, client_id, ${MEMBER_FIELDS.join(', ')}, username_key, email_key, updated_at)
       VALUES (@id, @client_id, ${MEMBER_FIELDS.map((c) => `@${c}`).join(', ')}, @username_key, @email_key, @updated_at)`,
    );
    this.updateMember = db.prepare(
      `UPDATE members SET ${MEMBER_FIELDS.map((c) => `${c} = @${c}`).join(', ')}, username_key = @username_key, email_key = @email_key, updated_at = @updated_at WHERE id = @id`,
    );
    this.deleteMember = db.prepare('DELETE FROM members WHERE id = ?');
    this.reportByUuid = db.prepare<[string], number>('SELECT id FROM warnings WHERE uuid = ?').pluck();
    this.insertReport = db.prepare(
      'INSERT INTO warnings (uuid, poi_id, type, member_id, data, created_at, updated_at) VALUES (@uuid, @poi_id, @type, @member_id, @data, @created_at, @updated_at)',
    );
    // Only when something differs: an unchanged row logs nothing.
    this.updateReport = db.prepare(
      `UPDATE warnings SET poi_id = @poi_id, type = @type, member_id = @member_id, data = @data, updated_at = @updated_at
       WHERE id = @id AND (poi_id IS NOT @poi_id OR type IS NOT @type OR member_id IS NOT @member_id OR data IS NOT @data)`,
    );
    this.deleteReport = db.prepare('DELETE FROM warnings WHERE id = ?');
  }

  /**
   * `pending`: rows changed here and not pushed yet keep their local state: the next push sends
   * it, the central merges, and a later pull brings the result. `after` runs in the same
   * transaction (the cursor kept with what it covers).
   */
  apply(clientId: string, rows: readonly PulledRow[], pending: ReadonlySet<string>, after: () => void): void {
    this.writes.now(SYNC, () => {
      for (const row of rows) {
        if (pending.has(row.uuid)) continue;
        if (row.entity === 'category') this.category(clientId, row);
        else if (row.entity === 'member') this.member(clientId, row);
        else if (row.entity === 'warning') this.report(row);
        else this.poi(clientId, row);
      }
      after();
    });
  }

  private report(row: PulledRow): void {
    const local = this.reportByUuid.get(row.uuid);
    if (row.deleted) {
      if (local !== undefined) this.deleteReport.run(local);
      return;
    }
    const f = row.fields;
    const poi = typeof f.poi_uuid === 'string' ? this.poiByUuid.get(f.poi_uuid) : undefined;
    // A report of a POI this desktop no longer has (deleted here, not yet sent) waits for the POI's fate.
    if (!poi) return;
    const memberId = typeof f.member_id === 'string' && this.memberExists.get(f.member_id)! > 0 ? f.member_id : null;
    const createdAt = typeof f.created_at === 'number' ? f.created_at : this.clock.now();
    const values = { uuid: row.uuid, poi_id: poi.id, type: String(f.type), member_id: memberId, data: typeof f.data === 'string' ? f.data : null, created_at: createdAt, updated_at: this.clock.now() };
    if (local === undefined) this.insertReport.run(values);
    else this.updateReport.run({ ...values, id: local });
  }

  private member(clientId: string, row: PulledRow): void {
    const local = this.memberById.get(row.uuid);
    if (row.deleted) {
      if (local) this.deleteMember.run(row.uuid);
      return;
    }
    const f = row.fields;
    const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
    const values = {
      id: row.uuid,
      client_id: clientId,
      username: text(f.username) ?? '',
      username_key: memberKey(text(f.username) ?? ''),
      email: text(f.email) ?? '',
      email_key: memberKey(text(f.email) ?? ''),
      pwd_hash: text(f.pwd_hash) ?? '!',
      gender: text(f.gender) ?? 'UNDEFINED',
      birthday: text(f.birthday),
      email_verified: f.email_verified === 1 ? 1 : 0,
      registered_at: typeof f.registered_at === 'number' ? f.registered_at : this.clock.now(),
      updated_at: this.clock.now(),
    };
    if (!local) this.insertMember.run(values);
    else if (MEMBER_FIELDS.some((c) => values[c] !== local[c])) this.updateMember.run(values);
  }

  private category(clientId: string, row: PulledRow): void {
    const description = String(row.fields.description ?? '');
    const deletedAt = typeof row.fields.deleted_at === 'number' ? row.fields.deleted_at : null;
    const local = this.categoryByUuid.get(row.uuid);
    const now = this.clock.now();
    if (!local) this.insertCategory.run(row.uuid, clientId, description, now, now, deletedAt);
    else if (local.description !== description || local.deleted_at !== deletedAt) this.updateCategory.run(description, deletedAt, now, local.id);
  }

  private poi(clientId: string, row: PulledRow): void {
    const local = this.poiByUuid.get(row.uuid);
    if (row.deleted) {
      if (local) this.store.delete(clientId, local.id);
      return;
    }
    const f = row.fields;
    const createdBy = typeof f.created_by === 'string' && this.memberExists.get(f.created_by)! > 0 ? f.created_by : null;
    const next: Omit<PoiRow, 'id'> = {
      ...poiFields((column) => f[column]),
      uuid: row.uuid,
      client_id: clientId,
      category_ids: categoryIds(this.refs.ids(Array.isArray(f.categories) ? f.categories : [])),
      created_by: createdBy,
      registered_at: typeof f.registered_at === 'number' ? f.registered_at : (local?.registered_at ?? this.clock.now()),
      updated_at: Math.max(this.clock.now(), (local?.updated_at ?? 0) + 1),
    };
    if (!local) {
      this.store.insert(next);
      return;
    }
    const compared = [...POI_FIELDS.map((x) => x.column), 'category_ids', 'created_by', 'registered_at'] as const;
    if (compared.some((c) => next[c] !== local[c])) this.store.update({ ...next, id: local.id });
  }
}
