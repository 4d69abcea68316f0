import { closeSync, openSync, readSync } from 'node:fs';
import type { Database } from 'better-sqlite3';

/** The first copy of the WAL-index header (https://www.sqlite.org/walformat.html, section 2.2). */
const HEADER_BYTES = 48;

interface Counts {
  version: number;
  changes: number;
}

/**
 * A stamp that differs whenever anything has been committed to the database since it was last
 * read, by whoever: this connection, another process, a restore's own connection. What lets a
 * listener answer a repeated read from memory (main/http/reply-memo.ts) and still never answer
 * from before a commit.
 *
 * On a file, it reads the WAL-index header at the start of the `-shm` file, which SQLite maps
 * into every process that has the database open and rewrites with every commit (its `iChange`
 * counts transactions, its `mxFrame` and salts move with the WAL): one `pread`. Any statement
 * outside a transaction costs two `fcntl` calls for the read lock, and under load those two
 * calls cost more than the whole cached answer. Where there is no `-shm` (`:memory:`, a journal
 * mode other than WAL), one statement does it: `PRAGMA data_version` moves with every commit of
 * another connection and `total_changes()` with every row this one writes.
 */
export class CommitStamp {
  private readonly counts: () => Counts;
  private fd: number | undefined;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private readonly seen = Buffer.alloc(HEADER_BYTES);
  private generation = 0;

  constructor(db: Database, file: string) {
    const counts = db.prepare<[], Counts>('SELECT data_version AS version, total_changes() AS changes FROM pragma_data_version');
    this.counts = () => counts.get() ?? { version: 0, changes: 0 };
    const wal = file !== ':memory:' && file !== '' && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
    if (wal) {
      try {
        this.fd = openSync(`${file}-shm`, 'r');
      } catch {
        this.fd = undefined;
      }
    }
  }

  /** Where the stamp comes from: the `-shm` file's header, or a statement. */
  get source(): 'wal-index' | 'statement' {
    return this.fd === undefined ? 'statement' : 'wal-index';
  }

  read(): string {
    if (this.fd === undefined) {
      const { version, changes } = this.counts();
      return `${version}.${changes}`;
    }
    readSync(this.fd, this.header, 0, HEADER_BYTES, 0);
    if (!this.header.equals(this.seen)) {
      this.header.copy(this.seen);
      this.generation += 1;
    }
    return String(this.generation);
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
