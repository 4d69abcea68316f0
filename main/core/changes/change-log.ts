import type { Database, Statement } from 'better-sqlite3';
import { formatIso } from '../../../shared/time.js';
import type { ChangeReply } from '../../../shared/wire.js';
import { poiNotFound } from '../pois/pois.js';

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

const reply = (row: ChangeRow): ChangeReply => ({
  seq: row.seq,
  at: formatIso(row.at),
  entity: row.entity,
  id: row.entity_id,
  uuid: row.entity_uuid,
  op: row.op,
  fields: changedFields(row),
  actor: { kind: row.actor_kind, id: row.actor_id },
  undoes: row.undoes,
});

/** What the activity list shows: whose changes, of what, before which point (pages go back in time). */
export interface ActivityFilter {
  actor?: ChangeReply['actor']['kind'] | undefined;
  entity?: string | undefined;
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

  constructor(db: Database) {
    // The POI itself (its categories among its fields) and its reports, newest first.
    // With the history of the POIs merged into it (main/core/pois/merge.ts).
    this.ofPoi = db.prepare(
      `SELECT ${CHANGE_COLUMNS} FROM changes WHERE poi_id IN (SELECT @poi UNION ALL SELECT merged_id FROM poi_merges WHERE into_id = @poi) AND client_id = @client ORDER BY seq DESC LIMIT @limit`,
    );
    this.recent = db.prepare(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq < ? ORDER BY seq DESC LIMIT ?`);
  }

  /**
   * A POI's changes, newest first, deleted POIs included (their last change is the tombstone);
   * 404 when the client never had that POI.
   */
  poiHistory(clientId: string, poiId: number, limit = 1000): ChangeReply[] {
    const changes = this.ofPoi.all({ poi: poiId, client: clientId, limit }).map(reply);
    if (changes.length === 0) throw poiNotFound(poiId);
    return changes;
  }

  /**
   * The client's last changes, newest first, of one kind of actor and one entity when asked;
   * `next` is where the following page starts (null at the log's start).
   */
  activity(clientId: string, filter: ActivityFilter): { changes: ChangeReply[]; next: number | null } {
    const changes: ChangeReply[] = [];
    let before = filter.before ?? Number.MAX_SAFE_INTEGER;
    let scanned = 0;
    while (changes.length < filter.limit && scanned < ACTIVITY_SCAN) {
      const rows = this.recent.all(before, 1000);
      if (rows.length === 0) return { changes, next: null };
      for (const row of rows) {
        scanned++;
        before = row.seq;
        if (row.client_id !== clientId || (filter.actor && row.actor_kind !== filter.actor) || (filter.entity && row.entity !== filter.entity)) continue;
        changes.push(reply(row));
        if (changes.length === filter.limit) break;
      }
    }
    return { changes, next: before > 1 ? before : null };
  }
}
