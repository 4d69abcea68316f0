import BetterSqlite3, { type Database } from 'better-sqlite3';
import { existsSync } from 'node:fs';
import { migrate } from './migrate.js';
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
 * Opens (creating if needed) and migrates the one database file, or ':memory:'.
 * WAL lets readers run beside the writer; synchronous=FULL makes every acknowledged commit
 * durable across a power cut, not only across a process crash.
 */
export function openDatabase(file: string, options: OpenOptions = {}): Database {
  const existed = file !== ':memory:' && existsSync(file);
  const db = new BetterSqlite3(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, options.migrations ?? MIGRATIONS, {
      backup: (fromVersion) => {
        if (!existed) return;
        const stamp = new Date((options.now ?? Date.now)()).toISOString().replace(/[:.]/g, '-');
        // VACUUM INTO writes a consistent copy even with a WAL beside the file.
        db.prepare('VACUUM INTO ?').run(`${file}.v${fromVersion}-${stamp}.bak`);
      },
    });
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
