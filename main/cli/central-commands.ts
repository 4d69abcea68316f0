import { migrateCentral } from '../central/store/migrate.js';
import { centralPool } from '../central/store/pool.js';
import { print } from './console-call.js';
import type { CliOptions } from './options.js';

/** `central init --postgres URL`: creates or upgrades the central store's schema (PostGIS included). */
export async function runCentralCommand(sub: string | undefined, options: CliOptions): Promise<number> {
  if (sub !== 'init') throw new Error(`unknown central command ${sub ?? '(none)'}; use init`);
  if (!options.postgres) throw new Error('central init needs --postgres URL (postgres://user@host:port/database)');
  const pool = centralPool(options.postgres);
  try {
    print(await migrateCentral(pool));
    return 0;
  } finally {
    await pool.end();
  }
}
