import type { Database, Statement } from 'better-sqlite3';

/**
 * Tells when the data under the map has changed, whoever changed it: this process, or another
 * on the same database file (a `cli serve` beside the desktop app). Triggers move one counter
 * with every change to POIs, their categories and warnings (migration 006), so the answer is
 * exact, and a commit elsewhere that touches none of them (a login) changes nothing.
 */
export class DataWatch {
  private readonly count: Statement<[], number>;

  constructor(db: Database) {
    this.count = db.prepare<[], number>("SELECT value FROM change_counts WHERE topic = 'pois'").pluck();
  }

  /** Opaque; changes whenever POIs, their categories or their warnings change. One row read: cheap to poll. */
  version(): string {
    return String(this.count.get() ?? 0);
  }
}
