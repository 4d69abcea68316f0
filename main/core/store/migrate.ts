import type { Database } from 'better-sqlite3';
import { rmSync } from 'node:fs';
import type { Migration } from './migration.js';

export class NewerSchemaError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `This database was written by a newer version of the application (schema ${found}; this version knows up to ${known}). ` +
        'Open it with that newer version, or point --data at another folder.',
    );
    this.name = 'NewerSchemaError';
  }
}

class MigrationError extends Error {
  constructor(migration: Migration, cause: unknown) {
    super(
      `Upgrading the database to schema ${migration.version} (${migration.name}) failed, so nothing was changed: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = 'MigrationError';
  }
}

export interface MigrateOptions {
  /**
   * Called once, before the first migration touches a database that already had a schema.
   * Returns the backup file it wrote: it is removed again if the upgrade fails (the database is
   * then unchanged), so that a failing upgrade does not leave one more copy at every start.
   */
  backup?: (fromVersion: number) => string | undefined;
}

/**
 * Applies every migration above the database's user_version, all of them in one transaction
 * (each sets user_version as it goes): an upgrade is applied whole or not at all.
 */
export function migrate(db: Database, migrations: readonly Migration[], options: MigrateOptions = {}): number {
  const known = migrations.length === 0 ? 0 : migrations[migrations.length - 1]!.version;
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`migration ${m.name} is numbered ${m.version}, expected ${i + 1}`);
  });
  const current = db.pragma('user_version', { simple: true });
  if (typeof current !== 'number') throw new Error('could not read user_version');
  if (current > known) throw new NewerSchemaError(current, known);
  const pending = migrations.filter((m) => m.version > current);
  if (pending.length === 0) return current;
  const backupFile = current > 0 ? options.backup?.(current) : undefined;
  // PRAGMA foreign_keys is a no-op inside a transaction: it is switched around the whole upgrade.
  const keysOff = pending.some((m) => m.rebuildsReferencedTables) && db.pragma('foreign_keys', { simple: true }) === 1;
  if (keysOff) db.pragma('foreign_keys = OFF');
  try {
    db.transaction(() => {
      for (const m of pending) {
        try {
          m.up(db);
        } catch (error) {
          throw new MigrationError(m, error);
        }
        // PRAGMA takes no bound parameters; the version is an integer we own.
        db.pragma(`user_version = ${Math.trunc(m.version)}`);
      }
      if (keysOff && (db.pragma('foreign_key_check') as unknown[]).length > 0) {
        throw new Error('the upgrade would leave rows pointing at rows that do not exist; nothing was changed');
      }
    })();
  } catch (error) {
    if (backupFile) rmSync(backupFile, { force: true });
    throw error;
  } finally {
    if (keysOff) db.pragma('foreign_keys = ON');
  }
  return known;
}
