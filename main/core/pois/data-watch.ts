import type { Database, Statement } from 'better-sqlite3';

/**
 * Tells when the data under the map has changed, whoever changed it: this process, or another
 * on the same database file (a `cli serve` beside the desktop app). Every change to POIs, their
 * categories and warnings is in the change log (migration 007); the last one's sequence number
 * is one index entry away. A commit elsewhere that touches none of them (a login) changes nothing.
 */
export class DataWatch {
  private readonly last: Statement<[], number>;

  constructor(db: Database) {
    // The same condition as the partial index changes_of_pois, so that SQLite reads that index.
    this.last = db.prepare<[], number>("SELECT coalesce(max(seq), 0) FROM changes WHERE poi_id IS NOT NULL OR entity = 'category'").pluck();
  }

  /** Opaque; changes whenever POIs, their categories or their warnings change. One index entry: cheap to poll. */
  version(): string {
    return String(this.last.get() ?? 0);
  }
}
