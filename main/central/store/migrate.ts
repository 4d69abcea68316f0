import type { Pool } from 'pg';
import type { CentralMigration } from './migration.js';
import { CENTRAL_MIGRATIONS } from './migrations/index.js';

/** Any constant: the advisory lock that makes concurrent `central init`s (and service starts) take turns. */
const MIGRATION_LOCK = 0x706f6931;

/** The schema version the central database is at (0: not initialised). */
export async function centralSchemaVersion(pool: Pool): Promise<number> {
  const { rows } = await pool.query<{ v: number | null }>("SELECT CASE WHEN to_regclass('schema_version') IS NULL THEN 0 ELSE (SELECT max(version) FROM schema_version) END AS v");
  return rows[0]?.v ?? 0;
}

export interface MigrationOutcome {
  from: number;
  to: number;
  applied: string[];
}

/**
 * Creates or upgrades the central schema, one migration per transaction, each recorded in
 * `schema_version` with it. A database newer than this build is refused, never downgraded.
 */
export async function migrateCentral(pool: Pool, migrations: readonly CentralMigration[] = CENTRAL_MIGRATIONS): Promise<MigrationOutcome> {
  const db = await pool.connect();
  try {
    await db.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await db.query('CREATE TABLE IF NOT EXISTS schema_version (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const { rows } = await db.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version');
    const from = rows[0]?.v ?? 0;
    const latest = migrations.at(-1)?.version ?? 0;
    if (from > latest) throw new Error(`the central database is at schema version ${from}, newer than this build knows (${latest}): upgrade this program`);
    const applied: string[] = [];
    for (const m of migrations.filter((x) => x.version > from)) {
      await db.query('BEGIN');
      try {
        await m.up(db);
        await db.query('INSERT INTO schema_version (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await db.query('COMMIT');
      } catch (error) {
        await db.query('ROLLBACK');
        throw new Error(`central migration ${m.version} (${m.name}) failed, nothing of it was kept: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      applied.push(`${m.version} ${m.name}`);
    }
    return { from, to: Math.max(from, latest), applied };
  } finally {
    await db.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    db.release();
  }
}
