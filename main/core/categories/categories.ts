import { newUuid } from '../store/new-uuid.js';
import type { Database, Statement } from 'better-sqlite3';
import type { CategoryReply } from '../../../shared/wire.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { CONSOLE, type Actor, type WritePath } from '../store/write-path.js';
import { sameNameKey } from '../../../shared/text-fold.js';

interface CategoryRow {
  id: number;
  client_id: string | null;
  description: string;
  deleted_at: number | null;
}

const categoryReply = (row: Pick<CategoryRow, 'id' | 'client_id' | 'description'>): CategoryReply => ({
  Id: row.id,
  Description: row.description,
  is_system_category: row.client_id === null,
});


/**
 * A client's live category (or a system one) that already has this name, case, accents and
 * spacing folded; `except` is the category being renamed. Checked in the write path, not by a
 * unique index: databases written before the rule may hold such pairs, and they still open.
 */
function sameName(rows: readonly CategoryRow[], desc: string, except?: number): CategoryRow | undefined {
  const key = sameNameKey(desc);
  return rows.find((row) => row.id !== except && sameNameKey(row.description) === key);
}

const alreadyExists = (row: CategoryRow): ServiceError =>
  new ServiceError(
    'ALREADY_EXISTS',
    `${row.client_id === null ? 'the system category' : 'category'} ${row.id} is already named “${row.description}”`,
    'desc',
  );

const notFound = (id: number): ServiceError =>
  new ServiceError('NOT_FOUND', `no category ${id} in this client application`, 'category');

/**
 * System categories (client_id NULL) are shared and read-only; each client adds its own.
 * A deleted category stops being listed and offered, but POIs keep showing it.
 */
export class Categories {
  private readonly listOwn: Statement<[string], CategoryRow>;
  private readonly listAll: Statement<[string], CategoryRow>;
  private readonly byId: Statement<[number], CategoryRow>;
  private readonly byIds: Statement<[string], CategoryRow>;
  private readonly insert: Statement;
  private readonly rename: Statement;
  private readonly eraseStmt: Statement;
  private readonly softDelete: Statement;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
  ) {
    const cols = 'id, client_id, description, deleted_at';
    this.listOwn = db.prepare(`SELECT ${cols} FROM categories WHERE client_id = ? AND deleted_at IS NULL ORDER BY id`);
    this.listAll = db.prepare(
      `SELECT ${cols} FROM categories WHERE (client_id = ? OR client_id IS NULL) AND deleted_at IS NULL ORDER BY client_id IS NOT NULL, id`,
    );
    this.byId = db.prepare(`SELECT ${cols} FROM categories WHERE id = ?`);
    this.byIds = db.prepare(`SELECT ${cols} FROM categories WHERE id IN (SELECT value FROM json_each(?))`);
    this.insert = db.prepare('INSERT INTO categories (uuid, client_id, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    this.rename = db.prepare('UPDATE categories SET description = ?, updated_at = ? WHERE id = ?');
    this.eraseStmt = db.prepare('DELETE FROM categories WHERE id = ?');
    this.softDelete = db.prepare('UPDATE categories SET deleted_at = ?, updated_at = ? WHERE id = ?');
  }

  list(clientId: string, includeSystem: boolean): CategoryReply[] {
    return (includeSystem ? this.listAll : this.listOwn).all(clientId).map(categoryReply);
  }

  add(clientId: string, { desc }: { desc: string }, actor: Actor = CONSOLE): CategoryReply {
    const now = this.clock.now();
    const id = this.writes.now(actor, () => {
      this.assertNameFree(clientId, desc);
      return Number(this.insert.run(newUuid(), clientId, desc, now, now).lastInsertRowid);
    });
    return categoryReply({ id, client_id: clientId, description: desc });
  }

  update(clientId: string, id: number, { desc }: { desc: string }, actor: Actor = CONSOLE): CategoryReply {
    const row = this.editable(clientId, id);
    this.writes.now(actor, () => {
      this.assertNameFree(clientId, desc, row.id);
      this.rename.run(desc, this.clock.now(), row.id);
    });
    return categoryReply({ ...row, description: desc });
  }

  remove(clientId: string, id: number, actor: Actor = CONSOLE): void {
    const row = this.editable(clientId, id);
    const now = this.clock.now();
    this.writes.now(actor, () => this.softDelete.run(now, now, row.id));
  }

  /** Whether this is a category of the client that is not deleted (system categories are not the client's). */
  isLive(clientId: string, id: number): boolean {
    const row = this.byId.get(id);
    return row !== undefined && row.deleted_at === null && row.client_id === clientId;
  }

  /**
   * Removes a category for good (the log keeps its tombstone), which only the undo of its
   * creation does: a deleted category otherwise stays, for the POIs and reports that name it.
   */
  erase(id: number, actor: Actor): void {
    this.writes.now(actor, () => this.eraseStmt.run(id));
  }

  /** Inside the write, so that two adds of one name at once cannot both pass. */
  private assertNameFree(clientId: string, desc: string, except?: number): void {
    const taken = sameName(this.listAll.all(clientId), desc, except);
    if (taken) throw alreadyExists(taken);
  }

  private editable(clientId: string, id: number): CategoryRow {
    const row = this.byId.get(id);
    if (!row || row.deleted_at !== null || (row.client_id !== null && row.client_id !== clientId)) throw notFound(id);
    if (row.client_id === null) {
      throw new ServiceError('FORBIDDEN', `category ${id} is a system category and cannot be changed`, 'category');
    }
    return row;
  }

  /**
   * Every id must be a live category of this client or a system category. Gives back their
   * replies in id order (as a POI lists them), read once for the check and the reply.
   */
  assertUsable(clientId: string, ids: readonly number[]): CategoryReply[] {
    const rows = [...new Set(ids)].sort((a, b) => a - b).map((id) => {
      const row = this.byId.get(id);
      if (!row || row.deleted_at !== null || (row.client_id !== null && row.client_id !== clientId)) {
        throw new ServiceError('NOT_FOUND', `no category ${id} in this client application`, 'categories');
      }
      return row;
    });
    return rows.map(categoryReply);
  }

  /**
   * These categories as replies, in the order given, deleted ones included; unknown ids are
   * skipped. One statement for many: the 30 categories of a near reply of 100 POIs took 0.28 ms
   * read one by one, 0.07-0.10 ms at once; for one (a get.json) the list costs 4-7 us more.
   */
  replies(ids: readonly number[]): CategoryReply[] {
    if (ids.length === 0) return [];
    const found = ids.length === 1 ? [this.byId.get(ids[0]!)].filter((row) => row !== undefined) : this.byIds.all(JSON.stringify(ids));
    const rows = new Map(found.map((row) => [row.id, row]));
    return ids.flatMap((id) => {
      const row = rows.get(id);
      return row ? [categoryReply(row)] : [];
    });
  }

  /**
   * The categories of many POIs, from each row's own `category_ids` (sorted and unique:
   * poi-row.ts), deleted ones included (POIs keep them). Not from the links (`poi_categories`,
   * which follow those lists by trigger): in a big file the links of 100 POIs are a page each,
   * where the categories are a few pages, always cached (a near query of 100 POIs among
   * 2,000,000: 84 of its 331 page reads).
   */
  forLists(lists: readonly string[]): CategoryReply[][] {
    const parsed = lists.map((list) => JSON.parse(list) as number[]);
    const known = new Map(this.replies([...new Set(parsed.flat())]).map((c) => [c.Id, c]));
    return parsed.map((ids) => ids.flatMap((id) => known.get(id) ?? []));
  }
}
