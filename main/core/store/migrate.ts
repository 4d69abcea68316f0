import type { Database } from 'better-sqlite3';
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

export interface MigrateOptions {
  /** Called once, before the first migration touches a database that already had a schema. */
  backup?: (fromVersion: number) => void;
}

/** Applies every migration above the database's user_version, each in its own transaction. */
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
  if (current > 0) options.backup?.(current);
  for (const m of pending) {
    db.transaction(() => {
      m.up(db);
      // PRAGMA takes no bound parameters; the version is an integer we own.
      db.pragma(`user_version = ${Math.trunc(m.version)}`);
    })();
  }
  return known;
}
