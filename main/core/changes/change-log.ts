import type { Database, Statement } from 'better-sqlite3';
import { formatIso } from '../../../shared/time.js';
import type { ChangeReply } from '../../../shared/wire.js';
import { poiNotFound } from '../pois/pois.js';

interface ChangeRow {
  seq: number;
  at: number;
  entity: string;
  entity_id: string;
  entity_uuid: string | null;
  op: ChangeReply['op'];
  fields: string;
  actor_kind: ChangeReply['actor']['kind'];
  actor_id: string | null;
}

const COLUMNS = 'seq, at, entity, entity_id, entity_uuid, op, fields, actor_kind, actor_id';

const reply = (row: ChangeRow): ChangeReply => ({
  seq: row.seq,
  at: formatIso(row.at),
  entity: row.entity,
  id: row.entity_id,
  uuid: row.entity_uuid,
  op: row.op,
  fields: JSON.parse(row.fields) as ChangeReply['fields'],
  actor: { kind: row.actor_kind, id: row.actor_id },
});

/**
 * Reads the change log that the database's triggers write with every write (migration 007):
 * history now; undo, export of changes and sync later.
 */
export class ChangeLog {
  private readonly ofPoi: Statement<[number, string, number], ChangeRow>;

  constructor(db: Database) {
    // The POI itself (its categories among its fields) and its reports, newest first.
    this.ofPoi = db.prepare(`SELECT ${COLUMNS} FROM changes WHERE poi_id = ? AND client_id = ? ORDER BY seq DESC LIMIT ?`);
  }

  /**
   * A POI's changes, newest first, deleted POIs included (their last change is the tombstone);
   * 404 when the client never had that POI.
   */
  poiHistory(clientId: string, poiId: number, limit = 1000): ChangeReply[] {
    const changes = this.ofPoi.all(poiId, clientId, limit).map(reply);
    if (changes.length === 0) throw poiNotFound(poiId);
    return changes;
  }
}
