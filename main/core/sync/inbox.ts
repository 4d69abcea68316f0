import type { Database, Statement } from 'better-sqlite3';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import type { CategoryRef, PulledRow } from '../../../shared/sync.js';
import type { Clock } from '../clock.js';
import { categoryIds, type PoiRow } from '../pois/poi-row.js';
import type { PoiStore } from '../pois/poi-store.js';
import type { WritePath } from '../store/write-path.js';
import type { CategoryRefs } from './refs.js';

const SYNC = { kind: 'sync' } as const;

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
        else this.poi(clientId, row);
      }
      after();
    });
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
    const next = {
      ...(local ?? {}),
      uuid: row.uuid,
      client_id: clientId,
      category_ids: categoryIds(this.refs.ids(Array.isArray(f.categories) ? (f.categories as CategoryRef[]) : [])),
      created_by: createdBy,
      registered_at: typeof f.registered_at === 'number' ? f.registered_at : (local?.registered_at ?? this.clock.now()),
      updated_at: Math.max(this.clock.now(), (local?.updated_at ?? 0) + 1),
    };
    for (const field of POI_FIELDS) Object.assign(next, { [field.column]: f[field.column] ?? null });
    if (!local) {
      this.store.insert(next as Omit<PoiRow, 'id'>);
      return;
    }
    const changed = [...POI_FIELDS.map((x) => x.column), 'category_ids', 'created_by', 'registered_at'].some((c) => (next as Record<string, unknown>)[c] !== (local as Record<string, unknown>)[c]);
    if (changed) this.store.update(next as PoiRow);
  }
}
