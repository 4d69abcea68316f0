import type { Database, Statement } from 'better-sqlite3';
import type { PoiStore } from './poi-store.js';

/**
 * Tells when the data under the map may have changed, whoever changed it: this process, or
 * another on the same database file (a `cli serve` beside the desktop app). This connection's
 * writes are counted by SQLite (`total_changes()`) and, for POIs, by the store's generation.
 * Another connection's commits show only as a new `PRAGMA data_version`, which says that
 * something was committed, not what: a login's token or rate-limit count as much as a POI.
 */
export class DataWatch {
  private readonly dataVersion: Statement<[], number>;
  private readonly totalChanges: Statement<[], number>;
  private readonly poiSummary: Statement<[], string>;
  private summaryVersion = -1;
  private summary = '';

  constructor(
    db: Database,
    private readonly store: PoiStore,
  ) {
    this.dataVersion = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.totalChanges = db.prepare<[], number>('SELECT total_changes()').pluck();
    // Every write of a POI moves one of these: an insert the count and the top id (ids are
    // never reused), a delete the count, an update its updated_at (kept exact as a sum of
    // milliseconds within the day), a move in the same millisecond its position.
    this.poiSummary = db
      .prepare<[], string>(
        `SELECT count(*) || ' ' || coalesce(max(id), 0) || ' ' || coalesce(sum(updated_at % 86400000), 0)
           || ' ' || total(lat) || ' ' || total(lng) || ' ' || coalesce(sum(length(name)), 0) FROM pois`,
      )
      .pluck();
  }

  /**
   * Opaque; changes whenever anything the console shows may have changed, here or elsewhere.
   * Two reads of counters, cheap enough to poll.
   */
  version(): string {
    return `${this.dataVersion.get() ?? 0}.${this.totalChanges.get() ?? 0}`;
  }

  /**
   * Opaque; changes whenever the POIs may have changed. A commit elsewhere costs one pass over
   * the POIs (about 16 ms for 100,000) to learn whether it touched them, rather than a rebuild
   * of the map's clusters for every login.
   */
  pois(): string {
    const version = this.dataVersion.get() ?? 0;
    if (version !== this.summaryVersion) {
      this.summary = this.poiSummary.get() ?? '';
      this.summaryVersion = version;
    }
    return `${this.store.generation}:${this.summary}`;
  }
}
