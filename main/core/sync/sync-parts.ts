import type { Database } from 'better-sqlite3';
import type { Clock } from '../clock.js';
import type { Services } from '../services.js';
import type { PoiStore } from '../pois/poi-store.js';
import type { WritePath } from '../store/write-path.js';
import { SyncInbox } from './inbox.js';
import { SyncOutbox } from './outbox.js';
import { CategoryRefs } from './refs.js';
import { SyncState } from './state.js';

/** What the sync client reaches of the core: its sync parts, and the clients, POIs and clock they work with. */
export type SyncCore = Pick<Services, 'sync' | 'clients' | 'clock' | 'pois'>;

/** The desktop's side of sync, over its SQLite: what the sync client (main/sync/) reads, applies and remembers. */
export interface SyncParts {
  state: SyncState;
  outbox: SyncOutbox;
  inbox: SyncInbox;
  /** The uuids of this client's POIs and categories changed here and not pushed yet: a pull leaves them alone. */
  pending(clientId: string, after: number): Set<string>;
  /** The log's last seq: where the log resumes after the first sync's snapshot. */
  lastSeq(): number;
  /** This desktop's id of a POI known everywhere by its uuid. */
  poiId(uuid: string): number | undefined;
  refs: CategoryRefs;
}

export function syncParts(db: Database, writes: WritePath, clock: Clock, store: PoiStore): SyncParts {
  const refs = new CategoryRefs(db);
  const pendingStmt = db.prepare<[number, string], string>(
    "SELECT DISTINCT entity_uuid FROM changes WHERE seq > ? AND client_id = ? AND actor_kind <> 'sync' AND entity IN ('poi', 'category', 'member', 'warning')",
  ).pluck();
  const lastSeqStmt = db.prepare<[], number>('SELECT coalesce(max(seq), 0) FROM changes').pluck();
  const poiIdStmt = db.prepare<[string], number>('SELECT id FROM pois WHERE uuid = ?').pluck();
  return {
    state: new SyncState(db),
    outbox: new SyncOutbox(db, refs),
    inbox: new SyncInbox(db, writes, clock, store, refs),
    pending: (clientId, after) => new Set(pendingStmt.all(after, clientId)),
    lastSeq: () => lastSeqStmt.get() ?? 0,
    poiId: (uuid) => poiIdStmt.get(uuid),
    refs,
  };
}
