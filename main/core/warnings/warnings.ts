import { newUuid } from '../store/new-uuid.js';
import type { Database, Statement } from 'better-sqlite3';
import { PROPOSED_FIELDS, type ValidAddWarning, type WarningType } from '../../../shared/schemas/pois.js';
import type { WarningCounts, WarningReply } from '../../../shared/wire.js';
import type { Categories } from '../categories/categories.js';
import type { Clock } from '../clock.js';
import { CONSOLE, type Actor, type WritePath } from '../store/write-path.js';
import { NO_WARNINGS } from '../pois/reply.js';
import { warningReply, type WarningRow } from './warning-reply.js';

const COUNTER: Record<WarningType, keyof WarningCounts> = {
  CLOSED: 'closed',
  DUPLICATED: 'duplicated',
  WRONG_INDICATOR: 'wrong_indicator',
  WRONG_INFO: 'wrong_info',
};

/** Reports about POIs. Open reports are counted in each POI's `warnings`; deleting one closes it. */
export class WarningStore {
  private readonly insert: Statement;
  private readonly byId: Statement<[number], WarningRow>;
  private readonly countsOf: Statement<[string], { poi_id: number; type: WarningType; n: number }>;
  private readonly countsOfOne: Statement<[number], { poi_id: number; type: WarningType; n: number }>;
  private readonly deleteType: Statement;
  private readonly deleteAll: Statement;
  private readonly listStmt: Statement<unknown[], WarningRow>;
  private readonly ofClient: Statement<[number, string], WarningRow>;
  private readonly deleteOne: Statement;
  private readonly existsStmt: Statement<[number], number>;
  private readonly restoreStmt: Statement;

  private readonly reply: (row: WarningRow) => WarningReply;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    categories: Categories,
  ) {
    this.reply = (row) => warningReply(row, (ids) => categories.replies(ids));
    this.insert = db.prepare('INSERT INTO warnings (uuid, poi_id, type, member_id, created_at, updated_at, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.byId = db.prepare('SELECT id, poi_id, type, member_id, created_at, data FROM warnings WHERE id = ?');
    this.countsOf = db.prepare(
      'SELECT poi_id, type, count(*) AS n FROM warnings WHERE poi_id IN (SELECT value FROM json_each(?)) GROUP BY poi_id, type',
    );
    this.countsOfOne = db.prepare('SELECT poi_id, type, count(*) AS n FROM warnings WHERE poi_id = ? GROUP BY poi_id, type');
    this.deleteType = db.prepare('DELETE FROM warnings WHERE poi_id = ? AND type = ?');
    this.deleteAll = db.prepare('DELETE FROM warnings WHERE poi_id = ?');
    this.deleteOne = db.prepare('DELETE FROM warnings WHERE id = ?');
    this.existsStmt = db.prepare<[number], number>('SELECT count(*) FROM warnings WHERE id = ?').pluck();
    this.restoreStmt = db.prepare(
      'INSERT INTO warnings (id, uuid, poi_id, type, member_id, created_at, updated_at, data) VALUES (@id, @uuid, @poi_id, @type, @member_id, @created_at, @updated_at, @data)',
    );
    this.ofClient = db.prepare(
      'SELECT w.id, w.poi_id, w.type, w.member_id, w.created_at, w.data FROM warnings w JOIN pois p ON p.id = w.poi_id WHERE w.id = ? AND p.client_id = ?',
    );
    this.listStmt = db.prepare(
      `SELECT w.id, w.poi_id, w.type, w.member_id, w.created_at, w.data FROM warnings w JOIN pois p ON p.id = w.poi_id
       WHERE p.client_id = ?
         AND (? IS NULL OR w.poi_id IN (SELECT value FROM json_each(?)))
         AND (? IS NULL OR w.type = ?)
       ORDER BY w.poi_id, w.id LIMIT 10000`,
    );
  }

  /** One open report of this client's POIs, as stored (its proposal holds only what the reporter gave). */
  row(clientId: string, id: number): WarningRow | undefined {
    return this.ofClient.get(id, clientId);
  }

  /** Whether the report is open (it exists). */
  exists(id: number): boolean {
    return this.existsStmt.get(id)! > 0;
  }

  /** A closed report back as it was, under its own id and uuid (undo). */
  restore(row: WarningRow & { uuid: string; updated_at: number }): void {
    this.restoreStmt.run(row);
  }

  /** Closes one report; false when it is not (or no longer) open. */
  close(id: number, actor: Actor = CONSOLE): boolean {
    return this.writes.now(actor, () => this.deleteOne.run(id).changes > 0);
  }

  add(memberId: string | null, input: ValidAddWarning): WarningReply {
    const data: Record<string, unknown> = {};
    for (const field of PROPOSED_FIELDS[input.type]) {
      if (input[field] !== undefined) data[field] = input[field];
    }
    const json = Object.keys(data).length === 0 ? null : JSON.stringify(data);
    const now = this.clock.now();
    const id = Number(this.insert.run(newUuid(), input.poi, input.type, memberId, now, now, json).lastInsertRowid);
    return this.reply(this.byId.get(id)!);
  }

  counts(poiIds: readonly number[]): Map<number, WarningCounts> {
    const map = new Map<number, WarningCounts>();
    if (poiIds.length === 0) return map;
    const rows = poiIds.length === 1 ? this.countsOfOne.all(poiIds[0]!) : this.countsOf.all(JSON.stringify(poiIds));
    for (const row of rows) {
      let counts = map.get(row.poi_id);
      if (!counts) map.set(row.poi_id, (counts = { ...NO_WARNINGS }));
      counts[COUNTER[row.type]] = row.n;
    }
    return map;
  }

  /** The open reports of this client's POIs, optionally of some POIs and one type. */
  list(clientId: string, poiIds: readonly number[] | undefined, type: WarningType | undefined): WarningReply[] {
    const ids = poiIds?.length ? JSON.stringify(poiIds) : null;
    return this.listStmt.all(clientId, ids, ids, type ?? null, type ?? null).map(this.reply);
  }

  /** Closes the reports of these POIs (of one type, or all), all or none: returns how many. */
  remove(poiIds: readonly number[], type: WarningType | undefined, actor: Actor = CONSOLE): number {
    return this.writes.now(actor, () => {
      let closed = 0;
      for (const poiId of poiIds) closed += (type ? this.deleteType.run(poiId, type) : this.deleteAll.run(poiId)).changes;
      return closed;
    });
  }
}
