import type { Database, Statement } from 'better-sqlite3';
import { SYSTEM, type WritePath } from '../store/write-path.js';

/** What this desktop remembers of its sync (migrations 011, 014): numbers only, never the credential. */
export interface SyncPoint {
  /** The central's URL, once configured. */
  url: string | null;
  /** The client application this desktop syncs. */
  clientId: string | null;
  /** This desktop's device id on the central (from its credential), to tell its own side of a conflict. */
  device: string | null;
  /** The last seq of the local change log the central acknowledged. */
  pushed: number;
  /** Whether the data this desktop held before its first sync was sent. */
  snapshotSent: boolean;
  /** The id of that snapshot's operations, drawn when it starts (a retry sends the same ones). */
  snapshotId: string | null;
  /**
   * The log's last seq when that snapshot started: the log is sent from there, so a change made
   * between a cut-off snapshot and its retry is sent, not taken for part of a snapshot already applied.
   */
  snapshotAt: number | null;
  /** The desktop's cursor on the central's change sequence. */
  cursor: number;
  /** When the last complete sync ended (epoch ms), 0 before the first. */
  lastSync: number;
  /**
   * This file went back in time (a restore: its log no longer holds the last change the central
   * applied from it): its pulls ask for its own rows too, until one has run to the end.
   */
  resync: boolean;
  /**
   * The central's mark (an operation id) this desktop found missing from its log and handled as a
   * restore. Until its next push moves the mark, the central gives the same one: no new restore.
   */
  restoreSeen: string | null;
}

const DEFAULTS: SyncPoint = { url: null, clientId: null, device: null, pushed: 0, snapshotSent: false, snapshotId: null, snapshotAt: null, cursor: 0, lastSync: 0, resync: false, restoreSeen: null };

export class SyncState {
  private readonly all: Statement<[], { key: string; value: string }>;
  private readonly put: Statement<[string, string]>;

  constructor(
    db: Database,
    private readonly writes: WritePath,
  ) {
    this.all = db.prepare('SELECT key, value FROM sync_state');
    this.put = db.prepare('INSERT INTO sync_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value');
  }

  read(): SyncPoint {
    const point: SyncPoint = { ...DEFAULTS };
    for (const { key, value } of this.all.all()) {
      if (key in point) Object.assign(point, { [key]: JSON.parse(value) as unknown });
    }
    return point;
  }

  /** Through the write path, like every write: an import holding its transaction commits first. */
  write(changes: Partial<SyncPoint>): void {
    this.writes.now(SYSTEM, () => {
      for (const [key, value] of Object.entries(changes)) this.put.run(key, JSON.stringify(value));
    });
  }
}
