import type { Database, Statement } from 'better-sqlite3';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { rowProblem, type FieldValue } from '../../../shared/sync-entities.js';
import type { PulledRow } from '../../../shared/sync.js';
import { memberKey } from '../members/members.js';
import type { Clock } from '../clock.js';
import { categoryIds, poiFields, type PoiRow } from '../pois/poi-row.js';
import type { PoiStore } from '../pois/poi-store.js';
import { SYNC, type WritePath } from '../store/write-path.js';
import type { CategoryRefs } from './refs.js';
import type { LocalRows } from './local-rows.js';
import type { SetAside } from './set-aside.js';

const NONE: ReadonlySet<string> = new Set();

/** How the rows of one page are applied, whichever slice of it goes now (PagedApply applies a page in slices). */
export interface PageRules {
  /** Rows changed here and not pushed: they keep their local state. */
  pending: ReadonlySet<string>;
  /** Each row in a savepoint of its own (after a constraint the fast path did not foresee). */
  careful: boolean;
  /** The uuids of the POIs and members the page deletes (categories are only marked deleted: nothing depends on their going). */
  gone: ReadonlySet<string>;
  /** Whether any row was kept aside when the page began: with none (nearly always), nothing to look up per row. */
  anyAside: boolean;
}

/** A pulled row that cannot be applied here, and why; the rest of its page applies (sync-parts.ts keeps it aside). */
class NotHere extends Error {}

const anothers = (entity: string): NotHere => new NotHere(`another client application on this desktop has a ${entity} with this uuid: it is not touched`);

const text = (v: FieldValue | undefined): string | null => (typeof v === 'string' ? v : null);
const number = (v: FieldValue | undefined): number | null => (typeof v === 'number' ? v : null);

/** SQLite refused a row for one of its constraints (a username another member holds here, a reference): that row, not the page. */
export function constraintFailure(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (!code.startsWith('SQLITE_CONSTRAINT')) return undefined;
  const message = error instanceof Error ? error.message : code;
  if (/members\.client_id, members\.username_key/.test(message)) return 'another member here has this username (a clash: resolve it in the conflicts)';
  if (/members\.client_id, members\.email_key/.test(message)) return 'another member here has this e-mail (a clash: resolve it in the conflicts)';
  return `this database refused it: ${message}`;
}

/**
 * Applies what a pull brought, through the one write path as the actor "sync" (so history says
 * so, and the outbox does not send it back), all rows of a page in one transaction with the
 * cursor that covers them. Every row is looked up and written within the pulling client only: a
 * row whose uuid another client holds here is set aside, never applied to that client's data.
 * A row is checked by the API's rules (shared/sync-entities.ts) before it is written; one that
 * breaks them, or that this database refuses, or that names what this desktop does not have yet
 * (a category, a report's POI), is set aside with its reason and tried again at every sync.
 * Applying a row this desktop already holds as it is changes nothing: a page applied twice (a
 * sync killed after applying it, before keeping its cursor) is harmless.
 */
export class SyncInbox {
  /**
   * The POIs and members a page deletes (`PageRules.gone`): while it is applied, a row that needs one of
   * them is applied as the page leaves it (a report dropped with its POI, an author cleared),
   * not kept aside. In one pass that is what the later tombstone does anyway; applied again
   * over its own committed first part (paged-apply.ts: a retry, a crash before the cursor), the
   * page finds them gone already, and would keep such rows aside for ever.
   */
  private gone: ReadonlySet<string> = NONE;
  private readonly poiRow: Statement<[string, string], PoiRow>;
  private readonly poiAnywhere: Statement<[string], PoiRow>;
  private readonly categoryRow: Statement<[string, string], { id: number; description: string; deleted_at: number | null }>;
  private readonly insertCategory: Statement;
  private readonly updateCategory: Statement;
  private readonly memberHere: Statement<[string, string], number>;
  private readonly insertMember: Statement;
  private readonly updateMember: Statement;
  private readonly deleteMember: Statement<[string, string]>;
  private readonly reportRow: Statement<[string, string], number>;
  private readonly insertReport: Statement;
  private readonly updateReport: Statement;
  private readonly deleteReport: Statement<[number]>;
  private readonly poiOrigin: Statement;
  private readonly savepoint: (work: () => void) => void;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly store: PoiStore,
    private readonly refs: CategoryRefs,
    private readonly rows: LocalRows,
    private readonly aside: SetAside,
  ) {
    this.savepoint = db.transaction((work: () => void) => work());
    this.poiRow = db.prepare('SELECT * FROM pois WHERE uuid = ? AND client_id = ?');
    this.poiAnywhere = db.prepare('SELECT * FROM pois WHERE uuid = ?');
    this.categoryRow = db.prepare('SELECT id, description, deleted_at FROM categories WHERE uuid = ? AND client_id = ?');
    this.insertCategory = db.prepare('INSERT INTO categories (uuid, client_id, description, created_at, updated_at, deleted_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.updateCategory = db.prepare('UPDATE categories SET description = ?, deleted_at = ?, updated_at = ? WHERE id = ?');
    this.memberHere = db.prepare<[string, string], number>('SELECT count(*) FROM members WHERE id = ? AND client_id = ?').pluck();
    const memberColumns = ['username', 'username_key', 'email', 'email_key', 'pwd_hash', 'gender', 'birthday', 'email_verified', 'registered_at', 'updated_at'];
    this.insertMember = db.prepare(`INSERT INTO members (id, client_id, ${memberColumns.join(', ')}) VALUES (@id, @client_id, ${memberColumns.map((c) => `@${c}`).join(', ')})`);
    // Only when something differs: an unchanged row logs nothing.
    this.updateMember = db.prepare(
      `UPDATE members SET ${memberColumns.map((c) => `${c} = @${c}`).join(', ')} WHERE id = @id AND client_id = @client_id
       AND (username IS NOT @username OR email IS NOT @email OR pwd_hash IS NOT @pwd_hash OR gender IS NOT @gender OR birthday IS NOT @birthday OR email_verified IS NOT @email_verified OR registered_at IS NOT @registered_at)`,
    );
    this.deleteMember = db.prepare('DELETE FROM members WHERE id = ? AND client_id = ?');
    this.reportRow = db.prepare<[string, string], number>('SELECT w.id FROM warnings w CROSS JOIN pois p ON p.id = w.poi_id WHERE w.uuid = ? AND p.client_id = ?').pluck();
    this.insertReport = db.prepare(
      'INSERT INTO warnings (uuid, poi_id, type, member_id, data, created_at, updated_at) VALUES (@uuid, @poi_id, @type, @member_id, @data, @created_at, @updated_at)',
    );
    this.updateReport = db.prepare(
      `UPDATE warnings SET poi_id = @poi_id, type = @type, member_id = @member_id, data = @data, updated_at = @updated_at
       WHERE id = @id AND (poi_id IS NOT @poi_id OR type IS NOT @type OR member_id IS NOT @member_id OR data IS NOT @data)`,
    );
    this.deleteReport = db.prepare('DELETE FROM warnings WHERE id = ?');
    // The POI store's update leaves a POI's origin alone (no API edit changes it); sync may (a merge of two members moves it).
    this.poiOrigin = db.prepare('UPDATE pois SET created_by = @created_by, registered_at = @registered_at WHERE id = @id AND (created_by IS NOT @created_by OR registered_at IS NOT @registered_at)');
  }

  /**
   * `pending`: rows changed here and not pushed yet keep their local state: the next push sends
   * it, the central merges, and a later pull brings the result. `after` runs in the same
   * transaction (the cursor kept with what it covers). Answers how many rows were set aside.
   */
  apply(clientId: string, rows: readonly PulledRow[], pending: ReadonlySet<string>, after: () => void): number {
    const run = (careful: boolean): number =>
      this.writes.now(SYNC, () => {
        const setAside = this.applyRows(clientId, rows, { ...this.rules(clientId, rows, careful), pending });
        after();
        return setAside;
      });
    try {
      return run(false);
    } catch (error) {
      // A constraint this fast path did not foresee: the page again, each row in its own savepoint.
      if (constraintFailure(error) === undefined) throw error;
      return run(true);
    }
  }

  /** A page's rules, but for `pending` (read again at every transaction of a paged apply). */
  rules(clientId: string, page: readonly PulledRow[], careful: boolean): Omit<PageRules, 'pending'> {
    return { careful, gone: new Set(page.filter((r) => r.deleted && r.entity !== 'category').map((r) => r.uuid)), anyAside: this.aside.size(clientId) > 0 };
  }

  /**
   * Rows of a page, inside the caller's transaction (`apply`, or a slice of paged-apply.ts);
   * answers how many were set aside.
   */
  applyRows(clientId: string, rows: readonly PulledRow[], page: PageRules): number {
    this.gone = page.gone;
    try {
      return this.applyEach(clientId, rows, page);
    } finally {
      this.gone = NONE;
    }
  }

  private applyEach(clientId: string, rows: readonly PulledRow[], { pending, careful, anyAside }: PageRules): number {
    let setAside = 0;
    for (const row of rows) {
      if (pending.has(row.uuid)) continue;
      const reason = this.tryRow(clientId, row, careful || row.entity === 'member' || row.entity === 'warning');
      if (reason === undefined) {
        // A newer version of a row kept aside replaces it.
        if (anyAside) this.aside.clear(row.entity, row.uuid);
      } else {
        this.aside.keep(clientId, row, reason);
        setAside++;
      }
    }
    return setAside;
  }

  /**
   * The rows set aside before, tried again (something they waited for may be here now), but not
   * over a change made here and not sent yet; answers how many are still aside.
   */
  retry(clientId: string, pending: ReadonlySet<string>): number {
    return this.writes.now(SYNC, () => {
      let left = 0;
      for (const row of this.aside.rows(clientId)) {
        if (pending.has(row.uuid)) {
          left++;
          continue;
        }
        const reason = this.tryRow(clientId, row, true);
        if (reason === undefined) this.aside.clear(row.entity, row.uuid);
        else {
          this.aside.keep(clientId, row, reason);
          left++;
        }
      }
      return left;
    });
  }

  /**
   * Applies one row; answers why it cannot be applied here (nothing of it written), or why it was
   * applied only in part (kept aside too, to be completed), or undefined.
   */
  private tryRow(clientId: string, row: PulledRow, guarded: boolean): string | undefined {
    try {
      let partly: string | undefined;
      if (guarded) this.savepoint(() => (partly = this.applyRow(clientId, row)));
      else partly = this.applyRow(clientId, row);
      return partly;
    } catch (error) {
      if (error instanceof NotHere) return error.message;
      const constraint = guarded ? constraintFailure(error) : undefined;
      if (constraint !== undefined) return constraint;
      throw error;
    }
  }

  private applyRow(clientId: string, row: PulledRow): string | undefined {
    // A POI's own lookup tells (poi below): the other entities are far fewer, looked up twice.
    if (row.entity !== 'poi' && this.rows.heldByAnother(row.entity, clientId, row.uuid)) throw anothers(row.entity);
    const live = !row.deleted || row.entity === 'category';
    if (live) {
      const broken = rowProblem(row.entity, row.fields);
      if (broken) throw new NotHere(`${broken.field} ${broken.message} (the API's rules refuse it)`);
    }
    if (row.entity === 'category') this.category(clientId, row);
    else if (row.entity === 'member') this.member(clientId, row);
    else if (row.entity === 'warning') return this.report(clientId, row);
    else return this.poi(clientId, row);
    return undefined;
  }

  /** A member a row refers to, when this desktop has it; else the reason the row waits for it. */
  private memberOf(clientId: string, id: FieldValue | undefined, what: string): { id: string | null; waits?: string } {
    const member = text(id);
    if (member === null || (this.memberHere.get(member, clientId) ?? 0) > 0) return { id: member };
    // Deleted by a later row of this page: the row ends without it (SET NULL) and waits for nothing.
    if (this.gone.has(member)) return { id: null };
    return { id: null, waits: `applied without its ${what}, a member not on this desktop yet (kept aside, or refused): completed when it comes` };
  }

  private report(clientId: string, row: PulledRow): string | undefined {
    const local = this.reportRow.get(row.uuid, clientId);
    if (row.deleted) {
      if (local !== undefined) this.deleteReport.run(local);
      return undefined;
    }
    const f = row.fields;
    const poi = this.poiRow.get(String(f.poi_uuid), clientId);
    if (!poi) {
      // Deleted by a later row of this page, which takes its reports with it (ON DELETE CASCADE): nothing to keep.
      if (this.gone.has(String(f.poi_uuid))) return undefined;
      throw new NotHere('its POI is not on this desktop (deleted here, or not pulled yet)');
    }
    const member = this.memberOf(clientId, f.member_id, 'reporter');
    const values = {
      uuid: row.uuid,
      poi_id: poi.id,
      type: String(f.type),
      member_id: member.id,
      data: text(f.data),
      created_at: number(f.created_at) ?? this.clock.now(),
      updated_at: this.clock.now(),
    };
    if (local === undefined) this.insertReport.run(values);
    else this.updateReport.run({ ...values, id: local });
    return member.waits;
  }

  private member(clientId: string, row: PulledRow): void {
    if (row.deleted) {
      this.deleteMember.run(row.uuid, clientId);
      return;
    }
    const f = row.fields;
    const values = {
      id: row.uuid,
      client_id: clientId,
      username: String(f.username),
      username_key: memberKey(String(f.username)),
      email: String(f.email),
      email_key: memberKey(String(f.email)),
      pwd_hash: String(f.pwd_hash),
      gender: String(f.gender),
      birthday: text(f.birthday),
      email_verified: f.email_verified === 1 ? 1 : 0,
      registered_at: number(f.registered_at) ?? this.clock.now(),
      updated_at: this.clock.now(),
    };
    if ((this.memberHere.get(row.uuid, clientId) ?? 0) === 0) this.insertMember.run(values);
    else this.updateMember.run(values);
  }

  private category(clientId: string, row: PulledRow): void {
    const description = String(row.fields.description);
    const deletedAt = row.deleted ? (number(row.fields.deleted_at) ?? this.clock.now()) : number(row.fields.deleted_at);
    const local = this.categoryRow.get(row.uuid, clientId);
    const now = this.clock.now();
    if (!local) this.insertCategory.run(row.uuid, clientId, description, now, now, deletedAt);
    else if (local.description !== description || local.deleted_at !== deletedAt) this.updateCategory.run(description, deletedAt, now, local.id);
  }

  private poi(clientId: string, row: PulledRow): string | undefined {
    const local = this.poiAnywhere.get(row.uuid);
    if (local && local.client_id !== clientId) throw anothers('poi');
    if (row.deleted) {
      if (local) this.store.delete(clientId, local.id);
      return undefined;
    }
    const f = row.fields;
    const named = Array.isArray(f.categories) ? f.categories : [];
    const ids = this.refs.ids(clientId, named);
    if (ids.length < named.length) throw new NotHere(`it names a category this desktop does not have yet (${named.filter((r) => this.refs.ids(clientId, [r]).length === 0).join(', ')})`);
    const creator = this.memberOf(clientId, f.created_by, 'author');
    const next: Omit<PoiRow, 'id'> = {
      ...poiFields((column) => f[column]),
      uuid: row.uuid,
      client_id: clientId,
      category_ids: categoryIds(ids),
      // A member this desktop does not hold (kept aside, or refused) cannot be referred to here: completed when it comes.
      created_by: creator.id,
      registered_at: number(f.registered_at) ?? local?.registered_at ?? this.clock.now(),
      updated_at: Math.max(this.clock.now(), (local?.updated_at ?? 0) + 1),
    };
    if (!local) {
      this.store.insert(next);
      return creator.waits;
    }
    if (POI_FIELDS.some((c) => next[c.column] !== local[c.column]) || next.category_ids !== local.category_ids) this.store.update({ ...next, id: local.id });
    this.poiOrigin.run({ id: local.id, created_by: next.created_by, registered_at: next.registered_at });
    return creator.waits;
  }
}
