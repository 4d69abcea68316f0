import pg from 'pg';

/**
 * A pool on the central database. A URL without a password is fine (trust or peer auth, or
 * PGPASSWORD / ~/.pgpass, which libpq's conventions and `pg` both read).
 */
export function centralPool(url: string): pg.Pool {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new Error(`--postgres ${url}: expected a postgres:// or postgresql:// URL`);
  const pool = new pg.Pool({ connectionString: url, max: 8 });
  // An idle connection that PostgreSQL dropped (a restart, a failover) is only discarded: the
  // next request opens a new one, and one that finds the database down answers its own error.
  pool.on('error', () => undefined);
  return pool;
}
