import type { Database, Statement } from 'better-sqlite3';
import { comparedOnDelete, fieldNames, sortedRefs, SYNCED_ENTITIES, type FieldValue, type SyncedEntity } from '../../../shared/sync-entities.js';
import { opOf, type LogMark, type PushedChange } from '../../../shared/sync.js';
import { CHANGE_COLUMNS, changedFields, type ChangeRow } from '../changes/change-log.js';
import type { LocalRows } from './local-rows.js';
import type { CategoryRefs } from './refs.js';

/** Whether a logged entity is one that syncs. */
const synced = (entity: string): entity is SyncedEntity => (SYNCED_ENTITIES as readonly string[]).includes(entity);

/** The snapshot of a first sync: the entities in the order a push writes them safely (a POI names its categories and member, a report its POI). */
const SNAPSHOT_ORDER: readonly SyncedEntity[] = ['member', 'category', 'poi', 'warning'];

export interface OutboxPage {
  changes: PushedChange[];
  /** Where the next page starts: the last seq read, pushed or skipped. */
  last: number;
  done: boolean;
  /** The last change read, as the central remembers this desktop's log by (hello's mark). */
  mark?: LogMark;
}

/** A change's operation id: its own id, or its seq for a change logged before ids existed (migration 014). */
export const changeOp = (device: string, row: Pick<ChangeRow, 'seq' | 'op_id'>): string => opOf(device, row.op_id ?? String(row.seq));

/** The fingerprint a log keeps of a password hash, as sync compares it ('fp:' alone: a change logged before fingerprints, whose base is unknown). */
const fingerprintIn = (logged: unknown): string => {
  const match = typeof logged === 'string' ? /\((?:secret )?(fp:[^)]*)\)/.exec(logged) : null;
  return match ? match[1]! : 'fp:';
};

/**
 * What this desktop sends the central, as the protocol's changes (shared/sync.ts): first, once,
 * the data it held before its first sync, as creations; then its change log, each change with the
 * values it replaced as its base (a delete with every field's, empty ones included). Changes
 * that a sync wrote (actor "sync") came from the central and are not sent back. The last change
 * of each row in a page carries the row's digest as this desktop now holds it (the central's
 * echo: this desktop's pulls then skip it).
 */
export class SyncOutbox {
  private readonly logPage: Statement<[number, number], ChangeRow>;

  constructor(
    db: Database,
    private readonly refs: CategoryRefs,
    private readonly rows: LocalRows,
    /** The rows of a client kept aside here (`entity:uuid`). */
    private readonly aside: (clientId: string) => ReadonlySet<string>,
  ) {
    this.logPage = db.prepare(`SELECT ${CHANGE_COLUMNS} FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`);
  }

  /** The log after `after`, this client's synced changes, stamped with this device's operation ids. */
  fromLog(deviceId: string, clientId: string, after: number, limit: number): OutboxPage {
    return this.refs.memoized(() => this.logPageOf(deviceId, clientId, after, limit));
  }

  private logPageOf(deviceId: string, clientId: string, after: number, limit: number): OutboxPage {
    const rows = this.logPage.all(after, limit);
    const changes: PushedChange[] = [];
    for (const row of rows) {
      if (row.client_id !== clientId || row.actor_kind === 'sync' || !synced(row.entity)) continue;
      changes.push(this.fromChange(deviceId, clientId, row, row.entity));
    }
    this.digestLast(clientId, changes);
    const lastRow = rows.at(-1);
    return { changes, last: lastRow?.seq ?? after, done: rows.length < limit, ...(lastRow ? { mark: { op: changeOp(deviceId, lastRow), seq: lastRow.seq } } : {}) };
  }

  /**
   * What the client holds now, as creations, a page of at most `limit` at a time: its members,
   * categories, POIs (which name both) and reports (which name their POI), in that order. Each
   * page is read whole before it is yielded, so no statement stays open while it is sent.
   * `snapshotId` is drawn once per snapshot: a restored file sends its own again, never taken
   * for one already applied.
   */
  *snapshot(deviceId: string, clientId: string, snapshotId: string, limit: number): Generator<PushedChange[]> {
    for (const entity of SNAPSHOT_ORDER) {
      for (const page of this.rows.pages(entity, clientId, limit)) {
        yield page.map((row) => ({
          op: opOf(deviceId, `snapshot:${snapshotId}:${entity}:${row.uuid}`),
          entity,
          uuid: row.uuid,
          kind: 'create',
          fields: Object.fromEntries(Object.entries(row.fields).map(([f, v]) => [f, [null, v]])),
          at: Number(row.fields.registered_at ?? row.fields.created_at ?? 0),
          state: row.fields,
        }));
      }
    }
  }

  /** The last change of each row in a page says what the row is now here: the central marks it as this desktop's echo when it ends the same. */
  private digestLast(clientId: string, changes: PushedChange[]): void {
    const last = new Map<string, PushedChange>();
    for (const c of changes) last.set(`${c.entity}:${c.uuid}`, c);
    // A row with an older version kept aside here says nothing of itself: it is pulled again, and the newer version replaces the one aside.
    for (const key of this.aside(clientId)) last.delete(key);
    for (const entity of SYNCED_ENTITIES) {
      const mine = [...last.values()].filter((c) => c.entity === entity);
      if (mine.length === 0) continue;
      const now = this.rows.getMany(entity, clientId, mine.map((c) => c.uuid));
      for (const c of mine) c.state = now.get(c.uuid)?.fields ?? 'deleted';
    }
  }

  private fromChange(deviceId: string, clientId: string, row: ChangeRow, entity: SyncedEntity): PushedChange {
    const uuid = entity === 'member' ? row.entity_id : row.entity_uuid!;
    const logged = this.wireFields(entity, changedFields(row));
    const fields: PushedChange['fields'] = {};
    if (row.op === 'delete') {
      // Every field's base, empty ones included: an edit the deleting desktop never saw is then always
      // a conflict. Not a creation time, which no one changes (and a member's log does not keep).
      for (const name of comparedOnDelete(entity)) fields[name] = [logged[name]?.[0] ?? null, null];
    } else {
      Object.assign(fields, logged);
      // Read only where the log does not hold what is sent: a creation's own time, a password.
      const needsRow = row.op === 'create' || (entity === 'member' && 'pwd_hash' in logged);
      const now = needsRow ? this.rows.get(entity, clientId, uuid) : undefined;
      // The log says only that a password changed: the hash sent is the member's current one, its base the old one's
      // fingerprint. A member deleted since has no hash left: its fingerprint stands for it, and its delete follows.
      if (entity === 'member' && needsRow) fields.pwd_hash = [row.op === 'create' ? null : (logged.pwd_hash?.[0] ?? 'fp:'), now?.fields.pwd_hash ?? logged.pwd_hash?.[1] ?? '!'];
      if (row.op === 'create') {
        // A creation's own time is the row's (the log's `at` is read a moment later), or, for a row deleted since, the change's.
        const created = entity === 'warning' ? 'created_at' : entity === 'category' ? undefined : 'registered_at';
        if (created) fields[created] = [null, now?.fields[created] ?? row.at];
      }
    }
    return { op: changeOp(deviceId, row), entity, uuid, kind: row.op, fields, at: row.at };
  }

  /** A change's logged columns as the protocol's fields: categories as refs, a report's POI by uuid, a password as its fingerprint. */
  private wireFields(entity: SyncedEntity, logged: Record<string, [unknown, unknown]>): Record<string, [FieldValue, FieldValue]> {
    const known = new Set(fieldNames(entity));
    const out: Record<string, [FieldValue, FieldValue]> = {};
    for (const [column, [old, now]] of Object.entries(logged)) {
      if (column === 'category_ids') out.categories = [old === null ? null : sortedRefs(this.refs.refs((old as number[] | null) ?? [])), now === null ? null : sortedRefs(this.refs.refs((now as number[] | null) ?? []))];
      else if (column === 'poi_id' && entity === 'warning') out.poi_uuid = [typeof old === 'number' ? this.refs.poiUuid(old) : null, typeof now === 'number' ? this.refs.poiUuid(now) : null];
      else if (column === 'password' && entity === 'member') out.pwd_hash = [old === null ? null : fingerprintIn(old), now === null ? null : fingerprintIn(now)];
      else if (known.has(column)) out[column] = [old as FieldValue, now as FieldValue];
    }
    return out;
  }
}
