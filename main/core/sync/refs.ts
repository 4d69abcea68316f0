import type { Database, Statement } from 'better-sqlite3';
import type { CategoryRef } from '../../../shared/sync-entities.js';

/**
 * Categories between their local ids and their names across machines: a client's own by UUID,
 * the system ones (the same ids on every desktop, but each database drew its own UUIDs) as `system:N`.
 */
export class CategoryRefs {
  private readonly byId: Statement<[number], { uuid: string; client_id: string | null }>;
  private readonly ownByUuid: Statement<[string, string], number>;
  private readonly poiUuidLive: Statement<[number], string>;
  private readonly poiUuidLogged: Statement<[string], string>;
  /** The system categories never change (migration 002): read once, not once per POI a pull brings. */
  private readonly systemIds: ReadonlySet<number>;
  private memo: Map<number, CategoryRef | null> | undefined;

  constructor(db: Database) {
    this.systemIds = new Set(db.prepare<[], number>('SELECT id FROM categories WHERE client_id IS NULL').pluck().all());
    this.byId = db.prepare('SELECT uuid, client_id FROM categories WHERE id = ?');
    this.ownByUuid = db.prepare<[string, string], number>('SELECT id FROM categories WHERE uuid = ? AND client_id = ?').pluck();
    this.poiUuidLive = db.prepare<[number], string>('SELECT uuid FROM pois WHERE id = ?').pluck();
    this.poiUuidLogged = db.prepare<[string], string>("SELECT entity_uuid FROM changes WHERE entity = 'poi' AND entity_id = ? AND entity_uuid IS NOT NULL LIMIT 1").pluck();
  }

  /** A POI's uuid from its local id: the live row's, or, for a POI deleted since, its log's. */
  poiUuid(id: number): string | null {
    return this.poiUuidLive.get(id) ?? this.poiUuidLogged.get(String(id)) ?? null;
  }

  refs(ids: readonly number[]): CategoryRef[] {
    return ids.flatMap((id) => {
      const known = this.memo?.get(id);
      if (known !== undefined) return known === null ? [] : [known];
      const row = this.byId.get(id);
      const ref = row ? (row.client_id === null ? `system:${id}` : row.uuid) : null;
      this.memo?.set(id, ref);
      return ref === null ? [] : [ref];
    });
  }

  /** Within `work` (synchronous: one page the outbox reads), each category is looked up once, not once per POI. */
  memoized<T>(work: () => T): T {
    this.memo = new Map();
    try {
      return work();
    } finally {
      this.memo = undefined;
    }
  }

  /** Local ids of these refs, within the client (and the system ones); a category this desktop does not have (yet) is left out. */
  ids(clientId: string, refs: readonly CategoryRef[]): number[] {
    return refs.flatMap((ref) => {
      if (ref.startsWith('system:')) {
        const id = Number(ref.slice(7));
        return this.systemIds.has(id) ? [id] : [];
      }
      const id = this.ownByUuid.get(ref, clientId);
      return id === undefined ? [] : [id];
    });
  }
}
