import type { Database, Statement } from 'better-sqlite3';

/** Both read in one statement, so from one snapshot of the log. */
interface Scan {
  /** The log's last sequence number. */
  top: number | null;
  /** The last change after the given one that the map shows, if any. */
  hit: number | null;
}

/**
 * Tells when the data under the map has changed, whoever changed it: this process, or another
 * on the same database file (a `cli serve` beside the desktop app). Every change to POIs, their
 * categories and warnings is in the change log (migration 007). Each read scans only the rows
 * appended since the previous one, newest first, and stops at the first that the map shows: the
 * cost follows the writes, and no index has to be kept for it with every write (migration 008).
 * A commit elsewhere that touches none of them (a login) leaves the version as it was.
 */
export class DataWatch {
  private readonly scan: Statement<[number], Scan>;
  private scannedTo = 0;
  private last = 0;
  /** Restores made by this process: the version differs after one even where the log's numbers meet again. */
  private restores = 0;

  constructor(db: Database) {
    this.scan = db.prepare<[number], Scan>(
      `SELECT (SELECT max(seq) FROM changes) AS top,
              (SELECT seq FROM changes WHERE seq > ? AND (poi_id IS NOT NULL OR entity = 'category') ORDER BY seq DESC LIMIT 1) AS hit`,
    );
  }

  /** Opaque; changes whenever POIs, their categories or their warnings change. Cheap to poll. */
  version(): string {
    let { top, hit } = this.scan.get(this.scannedTo) ?? { top: null, hit: null };
    if ((top ?? 0) < this.scannedTo) {
      // The log is shorter than when last read: another file was put in place (a restored backup).
      this.scannedTo = 0;
      this.last = 0;
      ({ top, hit } = this.scan.get(0) ?? { top: null, hit: null });
    }
    if (hit !== null) this.last = hit;
    if (top !== null) this.scannedTo = top;
    return this.restores === 0 ? String(this.last) : `${this.restores}.${this.last}`;
  }

  /** After a restore put other data in place: the next read rescans the log from its start. */
  forget(): void {
    this.restores += 1;
    this.scannedTo = 0;
    this.last = 0;
  }
}
