import type { Database } from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Services } from '../services.js';
import type { PoiStore } from '../pois/poi-store.js';
import type { WritePath } from '../store/write-path.js';
import { SyncInbox } from './inbox.js';
import { PagedApply } from './paged-apply.js';
import { LocalRows } from './local-rows.js';
import { changeOp, SyncOutbox } from './outbox.js';
import { CategoryRefs } from './refs.js';
import { SyncRefusals } from './refused.js';
import { SetAside } from './set-aside.js';
import { SyncState } from './state.js';

/** What the sync client reaches of the core: its sync parts, and the clients, POIs and clock they work with. */
export type SyncCore = Pick<Services, 'sync' | 'clients' | 'clock' | 'pois'>;

/** The desktop's side of sync, over its SQLite: what the sync client (main/sync-client/) reads, applies and remembers. */
export interface SyncParts {
  state: SyncState;
  outbox: SyncOutbox;
  inbox: SyncInbox;
  /** Pulled rows that could not be applied here, with their reasons. */
  setAside: SetAside;
  /** This desktop's changes the central refused, with their reasons. */
  refused: SyncRefusals;
  /** The uuids of this client's rows changed here and not pushed yet: a pull leaves them alone. */
  pending(clientId: string, after: number): Set<string>;
  /** The log's last seq: where the log resumes after the first sync's snapshot. */
  lastSeq(): number;
  /** The operation id, for this device, of the change at this seq of the log (undefined: the log has no such change). */
  opAt(deviceId: string, seq: number): string | undefined;
  /** The names of these category references as this desktop knows them (for a conflict's values). */
  categoryNames(clientId: string, refs: readonly string[]): Record<string, string>;
  /** This desktop's id of a POI known everywhere by its uuid. */
  poiId(uuid: string): number | undefined;
  refs: CategoryRefs;
  /** A pull's pages applied a slice at a time on a connection of their own (paged-apply.ts); none for a database in memory. */
  pagedApply: (() => PagedApply) | undefined;
}

export function syncParts(db: Database, writes: WritePath, clock: Clock, store: PoiStore, side?: () => Database): SyncParts {
  const refs = new CategoryRefs(db);
  const rows = new LocalRows(db, refs);
  const setAside = new SetAside(db, clock);
  const pendingStmt = db.prepare<[number, string], string>(
    "SELECT DISTINCT entity_uuid FROM changes WHERE seq > ? AND client_id = ? AND actor_kind <> 'sync' AND entity IN ('poi', 'category', 'member', 'warning')",
  ).pluck();
  const lastSeqStmt = db.prepare<[], number>('SELECT coalesce(max(seq), 0) FROM changes').pluck();
  const atStmt = db.prepare<[number], { seq: number; op_id: string | null }>('SELECT seq, op_id FROM changes WHERE seq = ?');
  const poiIdStmt = db.prepare<[string], number>('SELECT id FROM pois WHERE uuid = ?').pluck();
  const nameStmt = db.prepare<[number], string>('SELECT description FROM categories WHERE id = ?').pluck();
  return {
    state: new SyncState(db, writes),
    outbox: new SyncOutbox(db, refs, rows, (clientId) => setAside.keys(clientId)),
    inbox: new SyncInbox(db, writes, clock, store, refs, rows, setAside),
    setAside,
    refused: new SyncRefusals(db, writes, clock),
    pending: (clientId, after) => new Set(pendingStmt.all(after, clientId)),
    lastSeq: () => lastSeqStmt.get() ?? 0,
    opAt: (deviceId, seq) => {
      const row = atStmt.get(seq);
      return row ? changeOp(deviceId, row) : undefined;
    },
    poiId: (uuid) => poiIdStmt.get(uuid),
    categoryNames: (clientId, names) =>
      Object.fromEntries(
        names.flatMap((ref) => {
          const id = refs.ids(clientId, [ref])[0];
          const name = id === undefined ? undefined : nameStmt.get(id);
          return name === undefined ? [] : [[ref, name]];
        }),
      ),
    refs,
    pagedApply: side === undefined ? undefined : () => new PagedApply(side(), writes, clock),
  };
}
