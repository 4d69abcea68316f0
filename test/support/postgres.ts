import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);

/** Debian's PostgreSQL 15 (`.ci/run` installs it with PostGIS); POSTGRES_BIN points elsewhere. */
const BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * Why the central's tests cannot run here, or undefined when they can: they skip with this
 * reason on a developer machine without PostgreSQL; CI installs it, and there they must run
 * (`POI_REQUIRE_POSTGRES=1` turns a missing PostgreSQL into a failure).
 */
export function postgresMissing(): string | undefined {
  if (!existsSync(join(BIN, 'initdb'))) return `PostgreSQL is not installed (no ${BIN}/initdb): apt-get install postgresql-15 postgresql-15-postgis-3`;
  if (!existsSync('/usr/share/postgresql/15/extension/postgis.control')) return 'PostGIS is not installed: apt-get install postgresql-15-postgis-3';
  return undefined;
}

export interface ThrowawayPostgres {
  /** A database with PostGIS available, for a superuser without password over 127.0.0.1. */
  url: string;
  /** Another empty database of the same cluster. */
  newDatabase(name: string): Promise<string>;
  /** Stops the server, as a crash would (immediate mode), or cleanly. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  remove(): Promise<void>;
}

/**
 * A throwaway PostgreSQL cluster in a temporary folder, on a free port, removed after. PostgreSQL
 * refuses to run as root: as root, the folder belongs to the `postgres` user and every command
 * runs as that user (runuser).
 */
export async function startPostgres(): Promise<ThrowawayPostgres> {
  const missing = postgresMissing();
  if (missing) throw new Error(missing);
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'poi-pg-'));
  const data = join(dir, 'data');
  const port = await freePort();
  const as = async (cmd: string, args: string[]): Promise<string> => {
    const { stdout } = asRoot ? await run('runuser', ['-u', 'postgres', '--', join(BIN, cmd), ...args]) : await run(join(BIN, cmd), args);
    return stdout;
  };
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
    chmodSync(dir, 0o700);
  }
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const start = async (): Promise<void> => {
    await as('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'log'), '-w', 'start']);
  };
  await start();
  const urlOf = (db: string): string => `postgres://postgres@127.0.0.1:${port}/${db}`;
  const newDatabase = async (name: string): Promise<string> => {
    await as('createdb', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', name]);
    return urlOf(name);
  };
  const url = await newDatabase('central');
  const stop = async (mode: 'fast' | 'immediate' = 'fast'): Promise<void> => {
    await as('pg_ctl', ['-D', data, '-m', mode, '-w', 'stop']).catch(() => undefined);
  };
  return {
    url,
    newDatabase,
    stop,
    start,
    async remove() {
      await stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
