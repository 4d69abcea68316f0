import type { Database } from 'better-sqlite3';
import { WritePath, type Actor } from './write-path.js';

/**
 * The longest a long writer keeps one transaction open while nothing else in this process waits
 * to write. Another process's writer (the CLI) waits on SQLite's busy timeout (5 s,
 * database.ts), so this stays well under it; an import's rows are all or nothing anyway, so a
 * crash that loses the open transaction loses nothing an import would have kept.
 */
export const LONG_WRITE_COMMIT_MS = 1_000;

/**
 * A long writer (an import) on a connection of its own. Its batches stay small, a turn's worth
 * each, so the event loop is given back as often as before; but they go into one transaction
 * held across turns. Fewer, bigger transactions write each R*Tree, grid and index page to the
 * WAL once per commit instead of once per batch (docs/imports.md#measured).
 *
 * Nothing of it is seen through the main connection until it commits: replies, caches and the
 * sync outbox read only what is on disk. The main write path has it commit before each of its
 * own transactions (`WritePath.giveWayTo`), so a write arriving during an import waits no longer
 * than it did.
 */
export class LongWrite {
  /** This connection's write path: work runs in it, inside the open transaction, with no savepoint. */
  private readonly writes: WritePath;
  private begunAt: number | undefined;
  /** A commit that failed (a full disk) while the main path asked for it: the writer hears of it next. */
  private failure: unknown;
  private readonly stopGivingWay: () => void;

  constructor(
    private readonly db: Database,
    private readonly main: WritePath,
    now: () => number,
    private readonly commitAfterMs = LONG_WRITE_COMMIT_MS,
  ) {
    this.writes = new WritePath(db, now);
    this.stopGivingWay = main.giveWayTo(() => {
      try {
        this.commit();
      } catch (error) {
        this.failure ??= error;
      }
    });
  }

  /** The path the work's own store methods write through (they join the open transaction). */
  get path(): WritePath {
    return this.writes;
  }

  /**
   * Runs synchronous work for `actor` in the open transaction (begun if none is: `onBegin` runs
   * first in it). There is no savepoint to roll back to (each would cost a copy of every page it
   * touches): work that throws rolls back everything since the last commit, and the caller
   * starts again from there or gives up (an import fails, and undoes what it had committed).
   */
  run<T>(actor: Actor, work: () => T, onBegin?: () => void): T {
    this.throwIfFailed();
    try {
      if (!this.db.inTransaction) {
        // Another long writer (an import into another client) holds the lock: it commits first,
        // or this BEGIN would wait on it with the event loop held.
        this.main.makeWay();
        this.db.exec('BEGIN IMMEDIATE');
        this.begunAt = performance.now();
        // Nothing else can write from here to the commit: what it reads holds until then.
        onBegin?.();
      }
      return this.writes.within(actor, work);
    } catch (error) {
      this.rollback();
      throw error;
    }
  }

  /** Everything since the last commit, undone. */
  rollback(): void {
    if (this.db.inTransaction) this.db.exec('ROLLBACK');
    this.begunAt = undefined;
  }

  /** Resolves once this writer may write: at once, unless a backup has paused long writers. */
  mayGo(): Promise<void> {
    return this.main.longWritersMayGo();
  }

  /** Commits once the transaction has been open `commitAfterMs`; called between batches. */
  commitIfDue(): void {
    if (this.begunAt !== undefined && performance.now() - this.begunAt >= this.commitAfterMs) this.commit();
  }

  /** Everything run so far, on disk before it returns. */
  commit(): void {
    this.throwIfFailed();
    if (!this.db.inTransaction) return;
    this.begunAt = undefined;
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  /** Lets go of the connection; what was not committed is rolled back. */
  close(): void {
    this.stopGivingWay();
    this.rollback();
    this.db.close();
  }

  private failed(cause: unknown): void {
    const why = cause instanceof Error ? cause.message : String(cause);
    this.failure ??= new Error(`its open transaction was rolled back by SQLite (${why}); what it wrote since its last commit is not on disk`, { cause });
    this.rollback();
  }

  private throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }
}
