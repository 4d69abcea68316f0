import type { Database, Statement } from 'better-sqlite3';
import { formatIso } from '../../../shared/time.js';
import type { ActivityEntry, IMPORT_PARTS, ImportActivity } from '../../../shared/activity.js';
import type { ChangeReply } from '../../../shared/wire.js';
import { ServiceError } from '../errors.js';
import { poiNotFound } from '../pois/pois.js';
import type { GeocodedFields } from './geocoded-fields.js';

/** A row of `changes` as the log stores it (migrations 007 and 010). */
export interface ChangeRow {
  seq: number;
  at: number;
  entity: string;
  entity_id: string;
  entity_uuid: string | null;
  client_id: string | null;
  poi_id: number | null;
  op: ChangeReply['op'];
  fields: string;
  actor_kind: ChangeReply['actor']['kind'];
  actor_id: string | null;
  undoes: number | null;
  /** The change's own id (migration 014; null in rows logged before): sync's operation id. */
  op_id: string | null;
}

export const CHANGE_COLUMNS = 'seq, at, entity, entity_id, entity_uuid, client_id, poi_id, op, fields, actor_kind, actor_id, undoes, op_id';

/** A change's fields: each column's [old, new] value, as the triggers recorded them. */
export const changedFields = (row: ChangeRow): ChangeReply['fields'] => JSON.parse(row.fields) as ChangeReply['fields'];

/**
 * A change `c` not reversed: no undo of it stands (one not itself undone). What an import's undo
 * still has to reverse (main/core/changes/undo.ts), and whether an import is undone.
 */
export const NOT_REVERSED = 'NOT EXISTS (SELECT 1 FROM changes u WHERE u.undoes = c.seq AND NOT EXISTS (SELECT 1 FROM changes r WHERE r.undoes = u.seq))';

/** The changes of one import (`c`): the index `changes_of_imports` (migration 010) finds them. */
const OF_IMPORT = "c.actor_kind = 'import' AND c.actor_id = @id AND c.client_id = @client";

type ImportPart = (typeof IMPORT_PARTS)[number];

/** Which import a change belongs to, as its own change or as an undo of one; none for the others. */
interface Group {
  part: ImportPart;
  importId: string;
}

const reply = (row: ChangeRow, geocoded: GeocodedFields): ChangeReply => ({
  seq: row.seq,
  at: formatIso(row.at),
  entity: row.entity,
  id: row.entity_id,
  uuid: row.entity_uuid,
  op: row.op,
  fields: changedFields(row),
  actor: { kind: row.actor_kind, id: row.actor_id },
  undoes: row.undoes,
  geocoded: row.entity === 'poi' && row.op !== 'delete' ? geocoded.of(row.seq) : null,
});

/** What the activity list shows: whose changes, of what, before which point (pages go back in time). */
export interface ActivityFilter {
  actor?: ChangeReply['actor']['kind'] | undefined;
  entity?: string | undefined;
  before?: number | undefined;
  limit: number;
}

/** A page of an import's changes, or of those that reversed them, newest first. */
export interface ImportChangesFilter {
  importId: string;
  part: ImportPart;
  before?: number | undefined;
  limit: number;
}

/**
 * How many rows of the log one activity page reads at most: the log has no index by client (every
 * index is paid by every write; migration 008), so a page walks back from its point in `seq`
 * order and stops here, saying where it stopped.
 */
const ACTIVITY_SCAN = 50_000;

/**
 * Reads the change log that the database's triggers write with every write (migration 007):
 * history, the activity list and undo.
 */
export class ChangeLog {
  private readonly ofPoi: Statement<[{ poi: number; client: string; limit: number }], ChangeRow>;
  private readonly recent: Statement<[number, number], ChangeRow>;
  private readonly actorOf: Statement<[number], { actor_kind: string; actor_id: string | null }>;
  private readonly newestOfImport: Statement<{ id: string; client: string; entity: string | null }, number | null>;
  private readonly undoOfImport: Statement<{ id: string; client: string; entity: string | null }, { newest: number | null; reversed: number }>;
  private readonly importSummary: Statement<{ id: string; client: string }, Omit<ImportActivity, 'id' | 'at' | 'fileName' | 'undone'> & { at: number | null; pending: number }>;
  private readonly importLabel: Statement<[string], string>;
  private readonly importPage: Record<ImportPart, Statement<{ id: string; client: string; before: number; limit: number }, ChangeRow>>;

  constructor(
    db: Database,
    private readonly geocoded: GeocodedFields,
  ) {
    // The POI itself (its categories among its fields) and its reports, newest first.
    // With the history of the POIs merged into it (main/core/pois/merge.ts).
    this.ofPoi = db.prepare(
      `SELECT ${CHANGE_COLUMNS} FROM changes WHERE poi_id IN (SELECT @poi UNION ALL SELECT merged_id FROM poi_merges WHERE into_id = @poi) AND client_id = @client ORDER BY seq DESC LIMIT @limit`,
    );
    this.recent = db.prepare(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq < ? ORDER BY seq DESC LIMIT ?`);
    this.actorOf = db.prepare('SELECT actor_kind, actor_id FROM changes WHERE seq = ?');
    this.newestOfImport = db.prepare<{ id: string; client: string; entity: string | null }, number | null>(`SELECT max(c.seq) FROM changes c WHERE ${OF_IMPORT} AND (@entity IS NULL OR c.entity = @entity)`).pluck();
    this.undoOfImport = db.prepare(
      `SELECT max(CASE WHEN @entity IS NULL OR u.entity = @entity THEN u.seq END) AS newest, count(*) AS reversed FROM changes c JOIN changes u ON u.undoes = c.seq WHERE ${OF_IMPORT}`,
    );
    this.importSummary = db.prepare(
      `SELECT min(c.at) AS at, count(*) AS changes,
         coalesce(sum(c.entity = 'poi' AND c.op = 'create'), 0) AS added,
         coalesce(sum(c.entity = 'poi' AND c.op = 'update'), 0) AS updated,
         coalesce(sum(c.entity = 'category' AND c.op = 'create'), 0) AS categories,
         coalesce(sum(${NOT_REVERSED}), 0) AS pending
       FROM changes c WHERE ${OF_IMPORT}`,
    );
    this.importLabel = db.prepare<[string], string>("SELECT label FROM jobs WHERE id = ? AND kind = 'import'").pluck();
    this.importPage = {
      import: db.prepare(`SELECT ${CHANGE_COLUMNS} FROM changes c WHERE ${OF_IMPORT} AND c.seq < @before ORDER BY c.seq DESC LIMIT @limit`),
      undo: db.prepare(
        `SELECT ${CHANGE_COLUMNS.split(', ').map((column) => `u.${column}`).join(', ')} FROM changes c JOIN changes u ON u.undoes = c.seq WHERE ${OF_IMPORT} AND u.seq < @before ORDER BY u.seq DESC LIMIT @limit`,
      ),
    };
  }

  /**
   * A POI's changes, newest first, deleted POIs included (their last change is the tombstone);
   * 404 when the client never had that POI.
   */
  poiHistory(clientId: string, poiId: number, limit = 1000): ChangeReply[] {
    const changes = this.ofPoi.all({ poi: poiId, client: clientId, limit }).map((row) => reply(row, this.geocoded));
    if (changes.length === 0) throw poiNotFound(poiId);
    return changes;
  }

  /**
   * The client's last changes, newest first, of one kind of actor and one entity when asked;
   * `next` is where the following page starts (null at the log's start). An import is one entry,
   * and so is its undo, placed at its newest change (of those the filter keeps): a page never
   * splits one, nor does the next page show it again.
   */
  activity(clientId: string, filter: ActivityFilter): { entries: ActivityEntry[]; next: number | null } {
    const entries: ActivityEntry[] = [];
    // Each import's (and each undo's) newest change, once per page: where its one entry stands.
    const newest = new Map<string, number | null>();
    let before = filter.before ?? Number.MAX_SAFE_INTEGER;
    let scanned = 0;
    while (entries.length < filter.limit && scanned < ACTIVITY_SCAN) {
      const rows = this.recent.all(before, 1000);
      if (rows.length === 0) return { entries, next: null };
      for (const row of rows) {
        scanned++;
        before = row.seq;
        if (row.client_id !== clientId || (filter.actor && row.actor_kind !== filter.actor) || (filter.entity && row.entity !== filter.entity)) continue;
        const group = this.groupOf(row);
        if (!group) entries.push({ kind: 'change', change: reply(row, this.geocoded) });
        else {
          const key = `${group.part}:${group.importId}`;
          const q = { id: group.importId, client: clientId, entity: filter.entity ?? null };
          if (!newest.has(key)) newest.set(key, group.part === 'import' ? this.newestOfImport.get(q)! : this.undoOfImport.get(q)!.newest);
          if (newest.get(key) !== row.seq) continue;
          const of = this.importOf(clientId, group.importId);
          entries.push(
            group.part === 'import'
              ? { kind: 'import', seq: row.seq, import: of }
              : { kind: 'import-undo', seq: row.seq, at: formatIso(row.at), reversed: this.undoOfImport.get(q)!.reversed, import: of },
          );
        }
        if (entries.length === filter.limit) break;
      }
    }
    return { entries, next: before > 1 ? before : null };
  }

  /** An import's changes (or those that reversed them), newest first, a page at a time; NOT_FOUND when the client has no such import. */
  importChanges(clientId: string, filter: ImportChangesFilter): { changes: ChangeReply[]; next: number | null } {
    if (this.newestOfImport.get({ id: filter.importId, client: clientId, entity: null }) === null) {
      throw new ServiceError('NOT_FOUND', `no import ${filter.importId} in this client application`, 'importId');
    }
    const rows = this.importPage[filter.part].all({ id: filter.importId, client: clientId, before: filter.before ?? Number.MAX_SAFE_INTEGER, limit: filter.limit });
    return { changes: rows.map((row) => reply(row, this.geocoded)), next: rows.length === filter.limit ? rows.at(-1)!.seq : null };
  }

  private groupOf(row: ChangeRow): Group | undefined {
    if (row.actor_kind === 'import' && row.actor_id !== null) return { part: 'import', importId: row.actor_id };
    if (row.undoes === null) return undefined;
    const undone = this.actorOf.get(row.undoes);
    return undone?.actor_kind === 'import' && undone.actor_id !== null ? { part: 'undo', importId: undone.actor_id } : undefined;
  }

  private importOf(clientId: string, importId: string): ImportActivity {
    const { at, pending, ...counts } = this.importSummary.get({ id: importId, client: clientId })!;
    return { id: importId, at: formatIso(at ?? 0), fileName: this.importLabel.get(importId) ?? null, ...counts, undone: pending === 0 };
  }
}
