import type { Database } from 'better-sqlite3';
import { fingerprint } from '../../../shared/sync-entities.js';
import { newUuid } from './new-uuid.js';

/**
 * Who makes a write, as the change log records it (migration 007), and, when the write reverses
 * an earlier change, which one (`undoes`, its seq; migration 010).
 */
export type Actor = (
  | { kind: 'member'; id: string }
  | { kind: 'administrator' }
  | { kind: 'console' }
  /** One import, by its id: its changes can be found (and undone) together. */
  | { kind: 'import'; id: string }
  | { kind: 'sync' }
  | { kind: 'system' }
) & { undoes?: number };

/** The operator of this computer: the admin console, the desktop app, the CLI. */
export const CONSOLE: Actor = { kind: 'console' };
/** The service itself (rate-limit counts, housekeeping). */
export const SYSTEM: Actor = { kind: 'system' };
/** What a pull applies: the outbox never sends it back. */
export const SYNC: Actor = { kind: 'sync' };

/**
 * The SQL functions the change log's triggers call. Every connection the core opens has them:
 * with no write in progress they say "system" (tests and tools that write rows directly).
 */
export function registerChangeFunctions(db: Database, now: () => number, actor: () => Actor | undefined): void {
  db.function('change_now', { deterministic: false }, () => now());
  db.function('change_actor_kind', { deterministic: false }, () => actor()?.kind ?? 'system');
  db.function('change_actor_id', { deterministic: false }, () => {
    const a = actor();
    return a?.kind === 'member' || a?.kind === 'import' ? a.id : null;
  });
  db.function('change_undoes', { deterministic: false }, () => actor()?.undoes ?? null);
  // Sync's operation id (migration 014): a restored file hands out seqs again, never these. A change
  // a pull applied is never pushed (the outbox skips the sync actor's): it needs none.
  db.function('change_op_id', { deterministic: false }, () => (actor()?.kind === 'sync' ? null : newUuid()));
  // A password hash in the log (migration 014): its fingerprint, never the hash.
  db.function('change_fingerprint', { deterministic: true }, (value: unknown) => fingerprint(String(value)));
}

interface Pending {
  actor: Actor;
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Every write of a batch that SQLite rolled back whole hears of it, with the code of the failure
 * that caused it (SQLITE_FULL, SQLITE_IOERR...), so that it is answered as that storage failure.
 */
function aborted(cause: unknown): Error {
  const error = new Error('the batch transaction was rolled back by SQLite; this write was not made', { cause });
  const code = typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;
  return typeof code === 'string' ? Object.assign(error, { code }) : error;
}

/**
 * The one write path. Every write runs here, for an actor, which the change log's triggers
 * record with the change, in the same transaction.
 *
 * `run` is group commit. With synchronous=FULL every COMMIT waits for the disk, and
 * better-sqlite3 waits on the event loop: one write per fsync would cap the service at a few
 * thousand writes a second and stall every read meanwhile. Writes queued during one turn of the
 * event loop run together in one transaction, each in its own savepoint (a failing write rolls
 * back alone), and every caller hears of its write only after the shared COMMIT: an acknowledged
 * write is still on disk. `now` commits at once, for the writes of the console and of rare
 * operations whose callers want the answer in the same turn.
 *
 * Work must be synchronous: better-sqlite3 refuses a promise, and whatever an async function did
 * after its first await would escape the transaction.
 */
export class WritePath {
  private queue: Pending[] = [];
  private scheduled = false;
  private actor: Actor | undefined;
  /** Built once: a better-sqlite3 transaction function nested in another runs as a savepoint. */
  private readonly savepoint: (work: () => unknown) => unknown;
  /** Inside `within`: nested writes join its transaction as they are, without a savepoint. */
  private bare = false;
  /** Long writers on other connections of this process, to commit before this path begins (long-write.ts). */
  private readonly longWriters = new Set<() => void>();
  private pauses = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly db: Database,
    now: () => number,
  ) {
    this.savepoint = db.transaction((work: () => unknown) => work());
    registerChangeFunctions(db, now, () => this.actor);
  }

  /** Group-committed: resolves once the write is on disk. */
  run<T>(actor: Actor, work: () => T): Promise<T> {
    if (work.constructor.name === 'AsyncFunction') {
      return Promise.reject(new TypeError('WritePath.run takes synchronous work only'));
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ actor, work, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /**
   * A long writer on another connection of this process (store/long-write.ts) holds its
   * transaction across turns; `commit` ends it whenever this path is about to begin one. Else
   * this path's BEGIN IMMEDIATE would wait for the lock with the event loop held, and the long
   * writer, on that same loop, could never let it go. Answers how to stop.
   */
  giveWayTo(commit: () => void): () => void {
    this.longWriters.add(commit);
    return () => this.longWriters.delete(commit);
  }

  /** Every long writer's open transaction committed: the write lock is free for whoever begins next. */
  makeWay(): void {
    for (const commit of this.longWriters) commit();
  }

  /**
   * Long writers commit and wait until `resume` is called: an online backup (backups.ts) starts
   * over at every write made by another connection than its own, so it would never end while an
   * import commits every second. Nested pauses count.
   */
  pauseLongWriters(): () => void {
    this.makeWay();
    this.pauses++;
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.pauses === 0) for (const go of this.waiting.splice(0)) go();
    };
  }

  /** Resolves once long writers may write (at once, unless a backup has paused them). */
  longWritersMayGo(): Promise<void> {
    return this.pauses === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }

  /**
   * Committed before it returns, in its own IMMEDIATE transaction; inside another write (a
   * store method called by a write already under way) it joins that write, as a savepoint.
   */
  now<T>(actor: Actor, work: () => T): T {
    const outer = this.actor;
    this.actor = actor;
    try {
      if (this.db.inTransaction) return this.bare ? work() : (this.savepoint(work) as T);
      this.makeWay();
      return this.db.transaction(work).immediate() as T;
    } finally {
      this.actor = outer;
    }
  }

  /**
   * Runs in the transaction the caller holds open, with no savepoint, not even for the store
   * methods it calls (a savepoint copies every page it touches: +25-50 % per inserted row in
   * 40-row batches, docs/imports.md#measured): for a caller that rolls the whole transaction back
   * when work throws (long-write.ts).
   */
  within<T>(actor: Actor, work: () => T): T {
    if (!this.db.inTransaction) throw new Error('WritePath.within runs only inside an open transaction');
    const outer = this.actor;
    this.actor = actor;
    this.bare = true;
    try {
      return work();
    } finally {
      this.actor = outer;
      this.bare = false;
    }
  }

  private schedule(delayMs = 0): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const flush = (): void => {
      this.scheduled = false;
      this.flush();
    };
    if (delayMs > 0) setTimeout(flush, delayMs);
    else setImmediate(flush);
  }

  private flush(): void {
    // Only ever the outermost transaction: inside another, our COMMIT would be a mere RELEASE.
    if (this.db.inTransaction) {
      this.schedule(1);
      return;
    }
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    this.makeWay();
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      // IMMEDIATE takes the write lock at BEGIN, where SQLite's busy timeout applies: a deferred
      // BEGIN that reads first fails at once when another process (the CLI) is writing.
      this.db
        .transaction(() => {
          for (const item of batch) {
            let failure: unknown;
            this.actor = item.actor;
            try {
              outcomes.push({ ok: true, value: this.savepoint(item.work) });
            } catch (error) {
              failure = error;
              outcomes.push({ ok: false, error });
            } finally {
              this.actor = undefined;
            }
            // SQLite may roll the whole transaction back itself (disk full, I/O error): then the
            // remaining work must not run, or it would commit on its own outside the batch.
            if (!this.db.inTransaction) throw aborted(failure);
          }
        })
        .immediate();
    } catch (error) {
      // Nothing of the batch is on disk (the COMMIT failed, or SQLite rolled back): none is
      // acknowledged, and each hears why.
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }
}
