import type { Database, Statement } from 'better-sqlite3';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import type { UndoReply } from '../../../shared/wire.js';
import type { Categories } from '../categories/categories.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { categoryIds, poiFields, type PoiRow } from '../pois/poi-row.js';
import type { PoiStore } from '../pois/poi-store.js';
import { CONSOLE, type WritePath } from '../store/write-path.js';
import type { WarningStore } from '../warnings/warnings.js';
import { CHANGE_COLUMNS, changedFields, NOT_REVERSED, type ChangeRow } from './change-log.js';

/** The POI columns a change records with their values: what an undo compares and puts back. */
const POI_COLUMNS = [...POI_FIELDS.map((f) => f.column), 'category_ids', 'created_by'] as const;
type PoiColumn = (typeof POI_COLUMNS)[number];

/** How many POIs a refusal names: enough to find them, not a page of text. */
const NAMED = 5;
/**
 * Changes of an import reversed per transaction, the event loop given back between two: some
 * 100 µs each, so a turn stays under ~10 ms and a get.json sent meanwhile is answered between
 * two slices, instead of after an undo of 100,000 POIs (8.7 s in one transaction before).
 */
const UNDO_SLICE = 80;

/** How far an import's undo got: changes reversed, of how many. */
export type UndoProgress = (undone: number, of: number) => void;

const noChange = (seq: number): ServiceError => new ServiceError('NOT_FOUND', `no change ${seq} in this client application`, 'change');

/** A column's value as the log records it (categories as their array, not the row's JSON text). */
const logged = (row: PoiRow, column: PoiColumn): unknown => (column === 'category_ids' ? (JSON.parse(row.category_ids) as unknown) : row[column]);
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Undo: a change of a POI or of a report is reversed by a new change, through the same write
 * path, logged like any other with the seq it reverses (`undoes`), so history shows both and an
 * undo can itself be undone. A change is reversed only from the state it left: when what it wrote
 * was changed since (or the POI was deleted, or brought back), the undo is refused with
 * CONFLICT, naming what changed, and nothing is written. An import is undone whole, in one
 * transaction, or not at all.
 */
export class Undo {
  private readonly changeOf: Statement<[number, string], ChangeRow>;
  private readonly ofImport: Statement<[string, string], number>;
  private readonly pendingPage: Statement<[string, string, number, number], ChangeRow>;
  private readonly usersBesidesImport: Statement<[number, string, string], number>;
  private readonly before: Statement<[number], ChangeRow>;
  private readonly createdAt: Statement<[number], number>;
  private readonly memberExists: Statement<[string], number>;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly store: PoiStore,
    private readonly warnings: WarningStore,
    private readonly categories: Categories,
  ) {
    this.changeOf = db.prepare(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq = ? AND client_id = ?`);
    this.ofImport = db.prepare<[string, string], number>("SELECT count(*) FROM changes WHERE actor_kind = 'import' AND actor_id = ? AND client_id = ?").pluck();
    // Its changes not reversed yet: none reversed by an undo that stands (one not itself undone).
    this.pendingPage = db.prepare(
      `SELECT ${CHANGE_COLUMNS} FROM changes c WHERE actor_kind = 'import' AND actor_id = ? AND client_id = ? AND seq < ?
         AND ${NOT_REVERSED}
       ORDER BY seq DESC LIMIT ?`,
    );
    this.usersBesidesImport = db
      .prepare<[number, string, string], number>(
        `SELECT count(*) FROM poi_categories WHERE category_id = ?
           AND poi_id NOT IN (SELECT poi_id FROM changes WHERE actor_kind = 'import' AND actor_id = ? AND client_id = ? AND entity = 'poi' AND op = 'create')`,
      )
      .pluck();
    // The reports a POI's delete took with it: the cascade logs them just before the POI itself.
    this.before = db.prepare(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq < ? ORDER BY seq DESC`);
    this.createdAt = db.prepare<[number], number>("SELECT at FROM changes WHERE poi_id = ? AND entity = 'poi' AND op = 'create' ORDER BY seq LIMIT 1").pluck();
    this.memberExists = db.prepare<[string], number>('SELECT count(*) FROM members WHERE id = ?').pluck();
  }

  /** Reverses one change of a POI or of a report of this client. */
  change(clientId: string, seq: number): UndoReply {
    const change = this.changeOf.get(seq, clientId);
    if (!change) throw noChange(seq);
    const conflicts: string[] = [];
    this.writes.now(CONSOLE, () => {
      this.reverse(change, conflicts);
      if (conflicts.length > 0) throw conflict(conflicts);
    });
    return { undone: 1, poi: change.poi_id };
  }

  /** NOT_FOUND unless the client has changes of this import. */
  requireImport(clientId: string, importId: string): void {
    if (this.ofImport.get(importId, clientId)! === 0) throw new ServiceError('NOT_FOUND', `no import ${importId} in this client application`, 'import');
  }

  /**
   * Reverses every change of one import not reversed yet (newest first), a slice at a time with
   * the event loop given back between two. Checked whole first, writing nothing: a change since
   * to any of its POIs refuses the undo before any of it is written. A change that slips in
   * between two slices stops it there, saying how far it got; undoing the import again finishes
   * it (the changes already reversed are not reversed twice).
   */
  async importRun(clientId: string, importId: string, onProgress?: UndoProgress): Promise<UndoReply> {
    const steps = this.importSteps(clientId, importId);
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value;
      onProgress?.(...step.value);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** The same, without giving the event loop back: at start-up, before anything else is served. */
  importRunNow(clientId: string, importId: string): UndoReply {
    const steps = this.importSteps(clientId, importId);
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
  }

  /**
   * Yields the changes reversed so far and of how many, after each slice. The import's changes are
   * read a page at a time, newest first (all 60,000 of a large import read at once held the event
   * loop 0.7 s): the check walks the pages writing nothing, then the writes walk them again.
   */
  private *importSteps(clientId: string, importId: string): Generator<[number, number], UndoReply> {
    const total = this.ofImport.get(importId, clientId)!;
    if (total === 0) throw new ServiceError('NOT_FOUND', `no import ${importId} in this client application`, 'import');
    const pages = function* (this: Undo): Generator<ChangeRow[]> {
      for (let below = Number.MAX_SAFE_INTEGER; ; ) {
        const page = this.pendingPage.all(importId, clientId, below, UNDO_SLICE);
        if (page.length === 0) return;
        yield page;
        below = page.at(-1)!.seq;
      }
    }.bind(this);
    // The check: each row's newest change of the import is the one its current state must match
    // (an older one of the same row is matched once the newer is reversed, in the same pass).
    const conflicts: string[] = [];
    const seen = new Set<string>();
    let pending = 0;
    for (const page of pages()) {
      for (const change of page) {
        pending++;
        const row = `${change.entity}:${change.entity_id}`;
        if (seen.has(row)) continue;
        seen.add(row);
        this.conflictOf(change, conflicts, importId);
      }
      yield [0, total];
    }
    if (pending === 0) throw new ServiceError('CONFLICT', `import ${importId} was already undone (see its POIs' history)`, 'import');
    if (conflicts.length > 0) throw conflict(conflicts);
    let undone = 0;
    for (const slice of pages()) {
      try {
        this.writes.now(CONSOLE, () => {
          for (const change of slice) this.reverse(change, conflicts);
          if (conflicts.length > 0) throw conflict(conflicts);
        });
      } catch (error) {
        if (undone === 0 || conflicts.length === 0) throw error;
        throw new ServiceError('CONFLICT', `undone in part: ${undone} of ${pending} changes were reversed, then this stopped it: ${named(conflicts)}. Undo the import again to reverse the rest.`, 'import');
      }
      undone += slice.length;
      yield [undone, pending];
    }
    return { undone, poi: null };
  }

  /** Why a change cannot be reversed from the state its row is in now, if it cannot (writes nothing). */
  private conflictOf(change: ChangeRow, conflicts: string[], importId: string): void {
    const clientId = change.client_id!;
    const id = Number(change.entity_id);
    if (change.entity === 'warning') {
      const exists = this.warnings.exists(id);
      if (change.op === 'create' && !exists) conflicts.push(`report ${id} was closed since`);
      if (change.op === 'delete' && exists) conflicts.push(`report ${id} is open again`);
      return;
    }
    if (change.entity === 'category') {
      if (change.op !== 'create') return;
      if (!this.categories.isLive(clientId, id)) conflicts.push(`category ${id} was deleted since`);
      // POIs the import did not create that use it since would be left without it.
      else if (this.usersBesidesImport.get(id, importId, clientId)! > 0) conflicts.push(`category ${id} is used by POIs since`);
      return;
    }
    if (change.entity !== 'poi') return;
    const current = this.store.get(clientId, id);
    if (change.op === 'delete') {
      if (current) conflicts.push(`POI ${id} exists again`);
      return;
    }
    if (!current) return void conflicts.push(`POI ${id} was deleted since`);
    const changedSince = this.changedSince(change, current);
    if (changedSince.length > 0) conflicts.push(`POI ${id} "${current.name}" changed since: ${changedSince.join(', ')}`);
  }

  private changedSince(change: ChangeRow, current: PoiRow): string[] {
    return Object.entries(changedFields(change))
      .filter(([column, [, written]]) => isPoiColumn(column) && !same(logged(current, column), written))
      .map(([column]) => column);
  }

  /** Writes the reversal of one change, or adds to `conflicts` why it cannot be (then the caller rolls everything back). */
  private reverse(change: ChangeRow, conflicts: string[]): void {
    const clientId = change.client_id!;
    const id = Number(change.entity_id);
    const fields = changedFields(change);
    const actor = { ...CONSOLE, undoes: change.seq };
    if (change.entity === 'warning') {
      this.reverseReport(change, conflicts);
      return;
    }
    if (change.entity === 'category' && change.op === 'create') {
      // An import that was asked to create missing categories: they go again, unless POIs use them since.
      if (!this.categories.isLive(clientId, id)) return void conflicts.push(`category ${id} was deleted since`);
      if (this.store.linksToCategories([id], 1) > 0) return void conflicts.push(`category ${id} is used by POIs since`);
      this.categories.erase(id, actor);
      return;
    }
    if (change.entity !== 'poi') {
      throw new ServiceError('INVALID_PARAMETER', `a change of a ${change.entity} cannot be undone here: only POIs' and reports' changes`, 'change');
    }
    const current = this.store.get(clientId, id);
    if (change.op === 'delete') {
      if (current) return void conflicts.push(`POI ${id} exists again`);
      this.writes.now(actor, () => {
        this.store.restore(this.fromTombstone(change));
        this.restoreReports(change);
      });
      return;
    }
    if (!current) return void conflicts.push(`POI ${id} was deleted since`);
    const changedSince = this.changedSince(change, current);
    if (changedSince.length > 0) return void conflicts.push(`POI ${id} "${current.name}" changed since: ${changedSince.join(', ')}`);
    if (change.op === 'create') {
      this.writes.now(actor, () => this.store.delete(clientId, id));
      return;
    }
    const next: PoiRow = { ...current, updated_at: Math.max(this.clock.now(), current.updated_at + 1) };
    for (const [column, [old]] of Object.entries(fields)) {
      if (isPoiColumn(column)) Object.assign(next, { [column]: column === 'category_ids' ? categoryIds(old as number[]) : old });
    }
    this.writes.now(actor, () => this.store.update(next));
  }

  /** A POI as its tombstone recorded it: every field, its categories, its uuid and its dates. */
  private fromTombstone(change: ChangeRow): PoiRow {
    const fields = changedFields(change);
    const old = (column: string): unknown => fields[column]?.[0] ?? null;
    const id = Number(change.entity_id);
    const createdBy = old('created_by') as string | null;
    return {
      ...poiFields(old),
      id,
      uuid: change.entity_uuid!,
      client_id: change.client_id!,
      category_ids: categoryIds((old('category_ids') as number[] | null) ?? []),
      // A member removed since no longer exists to be named (as for the POIs it created: ON DELETE SET NULL).
      created_by: createdBy !== null && this.memberExists.get(createdBy)! > 0 ? createdBy : null,
      // Tombstones written before schema version 10 lack the dates: the creation's time stands in.
      registered_at: (old('registered_at') as number | null) ?? this.createdAt.get(id) ?? change.at,
      updated_at: Math.max(this.clock.now(), ((old('updated_at') as number | null) ?? 0) + 1),
    };
  }

  /** The reports the POI's delete cascaded to, logged just before it in the same statement. */
  private restoreReports(deleted: ChangeRow): void {
    const cascade: ChangeRow[] = [];
    for (const row of this.before.iterate(deleted.seq)) {
      const cascaded = row.entity === 'warning' && row.op === 'delete' && row.poi_id === deleted.poi_id && row.at === deleted.at;
      if (!cascaded) break;
      cascade.push(row);
    }
    // The cursor is closed (the loop broke or ran out) before writing on the same connection.
    for (const row of cascade) this.writes.now({ ...CONSOLE, undoes: row.seq }, () => this.warnings.restore(this.reportFromTombstone(row)));
  }

  private reverseReport(change: ChangeRow, conflicts: string[]): void {
    const id = Number(change.entity_id);
    const exists = this.warnings.exists(id);
    const actor = { ...CONSOLE, undoes: change.seq };
    if (change.op === 'create') {
      if (!exists) return void conflicts.push(`report ${id} was closed since`);
      this.warnings.close(id, actor);
    } else if (change.op === 'delete') {
      if (exists) return void conflicts.push(`report ${id} is open again`);
      if (!this.store.get(change.client_id!, change.poi_id!)) return void conflicts.push(`POI ${change.poi_id} of report ${id} was deleted`);
      this.writes.now(actor, () => this.warnings.restore(this.reportFromTombstone(change)));
    } else {
      throw new ServiceError('INVALID_PARAMETER', `a report's move (change ${change.seq}) cannot be undone`, 'change');
    }
  }

  private reportFromTombstone(change: ChangeRow): Parameters<WarningStore['restore']>[0] {
    const fields = changedFields(change);
    const old = (column: string): unknown => fields[column]?.[0] ?? null;
    const memberId = old('member_id') as string | null;
    const createdAt = (old('created_at') as number | null) ?? change.at;
    return {
      id: Number(change.entity_id),
      uuid: change.entity_uuid!,
      poi_id: old('poi_id') as number,
      type: old('type') as Parameters<WarningStore['restore']>[0]['type'],
      member_id: memberId !== null && this.memberExists.get(memberId)! > 0 ? memberId : null,
      created_at: createdAt,
      updated_at: (old('updated_at') as number | null) ?? createdAt,
      data: old('data') as string | null,
    };
  }
}

const isPoiColumn = (column: string): column is PoiColumn => (POI_COLUMNS as readonly string[]).includes(column);

/** The first few conflicts, and how many more. */
function named(conflicts: readonly string[]): string {
  const more = conflicts.length > NAMED ? `; and ${conflicts.length - NAMED} more` : '';
  return `${conflicts.slice(0, NAMED).join('; ')}${more}`;
}

function conflict(conflicts: readonly string[]): ServiceError {
  return new ServiceError('CONFLICT', `cannot undo, changed since: ${named(conflicts)}. Nothing was changed.`, 'change');
}
