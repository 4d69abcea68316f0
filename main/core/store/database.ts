import BetterSqlite3, { type Database } from 'better-sqlite3';
import { existsSync, statSync } from 'node:fs';
import {
  createPrivateFile,
  createWhole,
  damagedFileError,
  emptyFileError,
  isBeingCreated,
  isDamage,
  isDatabaseFile,
  makePrivate,
  QUICK_CHECK_MAX_BYTES,
  removeIfLeftEmpty,
} from './database-file.js';
import { closedCleanly } from './clean-close.js';
import { migrate } from './migrate.js';
import { registerChangeFunctions } from './write-path.js';
import type { Migration } from './migration.js';
import { MIGRATIONS } from './migrations/index.js';

export type { Database };

export interface OpenOptions {
  /** Milliseconds since the epoch, used to name the pre-migration backup. */
  now?: () => number;
  /** Where better-sqlite3's native addon lives, when it is not the Node build (Electron). */
  nativeBinding?: string;
  /** The schema history; tests pass their own to exercise upgrades. */
  migrations?: readonly Migration[];
}

/**
 * Storage settings kept because the bench showed they pay (docs/performance.md#storage-settings):
 * statement journals (each write of a group commit has its savepoint) kept in memory rather than
 * in a temporary file made and unlinked at every commit, and a checkpoint every 10,000 WAL pages
 * (40 MiB) rather than every 1,000, so that a busy writer copies pages back less often. Tried and
 * not kept, for no measurable gain: a bigger page cache, memory-mapped reads.
 */
const STORAGE_SETTINGS = ['temp_store = MEMORY', 'wal_autocheckpoint = 10000'] as const;

/** What every connection to the file sets for itself (journal_mode is the file's own). */
function connectionSettings(db: Database): void {
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  for (const setting of STORAGE_SETTINGS) db.pragma(setting);
}

/**
 * One more connection to a file `openDatabase` has opened (checked, migrated) in this process,
 * with the same settings: for a long writer beside the main connection (long-write.ts).
 */
export function openSideConnection(file: string, nativeBinding?: string): Database {
  const db = new BetterSqlite3(file, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    connectionSettings(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Opens (creating if needed) and migrates the one database file, or ':memory:'.
 * WAL lets readers run beside the writer; synchronous=FULL makes every acknowledged commit
 * durable across a power cut, not only across a process crash.
 *
 * The file is private (0600, and SQLite gives its WAL and shared-memory files the same mode). A
 * 0-byte file is refused rather than turned into a new empty database (unless another process is
 * creating it this very moment), and a damaged one is refused with the list of backups next to
 * it (`PRAGMA quick_check` runs at start on files small enough for it to be quick, unless the
 * file is exactly as this app's clean close left it: clean-close.ts).
 */
export function openDatabase(file: string, options: OpenOptions = {}): Database {
  const onDisk = isDatabaseFile(file);
  const existed = onDisk && existsSync(file);
  if (existed && statSync(file).size === 0 && !isBeingCreated(file)) throw emptyFileError(file);
  // Read before SQLite opens the file (opening it makes a WAL).
  const checkNeeded = existed && statSync(file).size <= QUICK_CHECK_MAX_BYTES && !closedCleanly(file);
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
  if (onDisk && !existed) {
    createWhole(file, (path) => {
      const fresh = new BetterSqlite3(path, binding);
      try {
        fresh.pragma('journal_mode = WAL');
      } finally {
        fresh.close();
      }
    });
  }
  const db = new BetterSqlite3(file, binding);
  try {
    if (onDisk) makePrivate(file);
    db.pragma('journal_mode = WAL');
    connectionSettings(db);
    // The change log's triggers call these; the core's write path replaces them with its own.
    registerChangeFunctions(db, options.now ?? Date.now, () => undefined);
    if (checkNeeded) {
      const verdict = db.pragma('quick_check', { simple: true });
      if (verdict !== 'ok') throw damagedFileError(file, `quick_check: ${String(verdict)}`);
    }
    migrate(db, options.migrations ?? MIGRATIONS, {
      backup: (fromVersion) => {
        if (!existed) return undefined;
        const stamp = new Date((options.now ?? Date.now)()).toISOString().replace(/[:.]/g, '-');
        const copy = `${file}.v${fromVersion}-${stamp}.bak`;
        createPrivateFile(copy);
        // VACUUM INTO writes a consistent copy even with a WAL beside the file.
        db.prepare('VACUUM INTO ?').run(copy);
        return copy;
      },
    });
    return db;
  } catch (error) {
    db.close();
    // A first start that failed before SQLite wrote a page must not leave a 0-byte file behind,
    // which the next start would refuse as a damaged database.
    if (onDisk && !existed) removeIfLeftEmpty(file);
    if (isDamage(error)) throw damagedFileError(file, error.message);
    throw error;
  }
}
