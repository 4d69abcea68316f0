import { closeSync, openSync, readSync, realpathSync } from 'node:fs';
import type { Database } from 'better-sqlite3';
import { isDatabaseFile } from './database-file.js';

/** The first copy of the WAL-index header (https://www.sqlite.org/walformat.html, section 2.2). */
const HEADER_BYTES = 48;
/** The header's `iVersion`, in the machine's byte order, and its `isInit` byte. */
const WAL_INDEX_VERSION = 3007000;
const IS_INIT_AT = 12;
/** The header's `iChange`: SQLite adds one at every commit, and only then (not when a writer restarts the WAL). */
const I_CHANGE_AT = 8;

interface Counts {
  version: number;
  changes: number;
}

/**
 * One descriptor per `-shm` file in this process, shared by its cores, and closed only once the
 * last of them has closed its database: closing any descriptor of a file drops every POSIX lock
 * the process holds on it, SQLite's locks on the `-shm` included, for every connection of this
 * process to that database.
 */
const descriptors = new Map<string, { fd: number; users: number }>();

function openShm(file: string): { shm: string; fd: number } {
  // SQLite keeps the `-shm` beside the real file when the path is a symbolic link.
  const shm = `${realpathSync(file)}-shm`;
  const known = descriptors.get(shm) ?? { fd: openSync(shm, 'r'), users: 0 };
  known.users += 1;
  descriptors.set(shm, known);
  return { shm, fd: known.fd };
}

function closeShm(shm: string): void {
  const known = descriptors.get(shm);
  if (!known || --known.users > 0) return;
  descriptors.delete(shm);
  closeSync(known.fd);
}

/** Whether the header is one SQLite wrote: the right size, version and initialised flag. */
function validHeader(fd: number): boolean {
  const header = Buffer.alloc(HEADER_BYTES);
  const read = readSync(fd, header, 0, HEADER_BYTES, 0);
  return read === HEADER_BYTES && header.readUInt32LE(0) === WAL_INDEX_VERSION && header[IS_INIT_AT] === 1;
}

/**
 * A stamp that differs whenever anything has been committed to the database since it was last
 * read, by whoever: this connection, another process, a restore's own connection. What lets a
 * listener answer a repeated read from memory (main/http/reply-memo.ts) and still never answer
 * from before a commit: while it has not moved, the change log need not be read
 * (main/core/pois/change-feed.ts).
 *
 * On a file, it reads the WAL-index header at the start of the `-shm` file, which SQLite maps
 * into every process that has the database open and rewrites with every commit (its `iChange`
 * counts transactions, its `mxFrame` and salts move with the WAL): one `pread`. Any statement
 * outside a transaction costs two `fcntl` calls for the read lock, and under load those two
 * calls cost more than the whole cached answer. Where there is no `-shm` to read (`:memory:`, a
 * journal mode other than WAL), or where reading it is not promised to see the mapped memory
 * (Windows documents no coherence between ReadFile and a mapped view), one statement does it:
 * `PRAGMA data_version` moves with every commit of another connection and `total_changes()` with
 * every row this one writes (`counted`).
 */
export class CommitStamp {
  private readonly counts: () => Counts;
  private fd: number | undefined;
  private shm: string | undefined;
  private readonly header = Buffer.alloc(HEADER_BYTES);
  private readonly seen = Buffer.alloc(HEADER_BYTES);
  private generation = 0;

  constructor(db: Database, file: string) {
    const counts = db.prepare<[], Counts>('SELECT data_version AS version, total_changes() AS changes FROM pragma_data_version');
    this.counts = () => counts.get() ?? { version: 0, changes: 0 };
    const wal = isDatabaseFile(file) && String(db.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal';
    if (!wal || process.platform === 'win32') return;
    try {
      const { shm, fd } = openShm(file);
      this.shm = shm;
      if (validHeader(fd)) this.fd = fd;
    } catch {
      this.fd = undefined;
    }
  }

  /**
   * The same from the statement alone, whatever the source of `read`: inside a transaction it
   * rides on the read lock the transaction holds anyway (the token cache's check in a read).
   */
  counted(): string {
    const { version, changes } = this.counts();
    return `${version}.${changes}`;
  }

  /** After the database is closed (see `descriptors`). */
  close(): void {
    if (this.shm !== undefined) closeShm(this.shm);
    this.shm = undefined;
    this.fd = undefined;
  }

  /** Where the stamp comes from: the `-shm` file's header, or a statement. */
  get source(): 'wal-index' | 'statement' {
    return this.fd === undefined ? 'statement' : 'wal-index';
  }

  /**
   * The number of transactions committed, from the header's `iChange` (wrapping at 2^32), read
   * from both of its copies; undefined where there is no `-shm` to read or the copies differ (a
   * writer is rewriting them). Where the stamp moved and this did not, nothing was committed: a
   * writer rewrote the header to start the WAL over, which it does every few hundred commits.
   */
  commits(): number | undefined {
    if (this.fd === undefined) return undefined;
    const both = Buffer.alloc(HEADER_BYTES * 2);
    if (readSync(this.fd, both, 0, both.length, 0) !== both.length) return undefined;
    if (!both.subarray(0, HEADER_BYTES).equals(both.subarray(HEADER_BYTES))) return undefined;
    // Little-endian, as validHeader found the version to be: otherwise there is no descriptor.
    return both.readUInt32LE(I_CHANGE_AT);
  }

  read(): string {
    if (this.fd === undefined) return this.counted();
    readSync(this.fd, this.header, 0, HEADER_BYTES, 0);
    if (!this.header.equals(this.seen)) {
      this.header.copy(this.seen);
      this.generation += 1;
    }
    return String(this.generation);
  }
}
