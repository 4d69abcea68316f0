import type { Database } from 'better-sqlite3';

interface Pending {
  work: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit. With synchronous=FULL every COMMIT waits for the disk, and better-sqlite3 waits
 * on the event loop: one write per fsync would cap the service at a few thousand writes a second
 * and stall every read meanwhile. Writes queued during one turn of the event loop run together in
 * one transaction, each in its own savepoint (a failing write rolls back alone), and every caller
 * hears of its write only after the shared COMMIT: an acknowledged write is still on disk.
 */
export class WriteBatcher {
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(private readonly db: Database) {}

  run<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    try {
      this.db.transaction(() => {
        for (const item of batch) {
          try {
            // A transaction inside a transaction is a savepoint in better-sqlite3.
            outcomes.push({ ok: true, value: this.db.transaction(item.work)() });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
      })();
    } catch (error) {
      // The COMMIT itself failed (disk full, I/O error): nothing of the batch is acknowledged.
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
