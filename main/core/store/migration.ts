import type { Database } from 'better-sqlite3';

/** One schema version: applied once, inside a transaction that also sets user_version. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
  /**
   * Rebuilds a table that others reference (SQLite's "12-step" ALTER): foreign keys must be off
   * while the old table is dropped, or its ON DELETE CASCADE would empty the referencing tables.
   * They are checked (`foreign_key_check`) before the migration commits.
   */
  rebuildsReferencedTables?: true;
}
