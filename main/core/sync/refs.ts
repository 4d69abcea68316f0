import type { Database, Statement } from 'better-sqlite3';
import type { CategoryRef } from '../../../shared/sync.js';

/**
 * Categories between their local ids and their names across machines: a client's own by UUID,
 * the system ones (the same ids on every desktop, but each database drew its own UUIDs) as `system:N`.
 */
export class CategoryRefs {
  private readonly byId: Statement<[number], { uuid: string; client_id: string | null }>;
  private readonly byUuid: Statement<[string], number>;

  constructor(db: Database) {
    this.byId = db.prepare('SELECT uuid, client_id FROM categories WHERE id = ?');
    this.byUuid = db.prepare<[string], number>('SELECT id FROM categories WHERE uuid = ?').pluck();
  }

  refs(ids: readonly number[]): CategoryRef[] {
    return ids.flatMap((id) => {
      const row = this.byId.get(id);
      if (!row) return [];
      return [row.client_id === null ? `system:${id}` : row.uuid];
    });
  }

  /** Local ids of these refs; a category this desktop does not have (yet) is left out. */
  ids(refs: readonly CategoryRef[]): number[] {
    return refs.flatMap((ref) => {
      if (ref.startsWith('system:')) return [Number(ref.slice(7))];
      const id = this.byUuid.get(ref);
      return id === undefined ? [] : [id];
    });
  }
}
