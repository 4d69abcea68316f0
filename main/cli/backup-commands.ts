import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ServiceError } from '../core/errors.js';
import { createCore, type Core } from '../core/service.js';
import { print } from './console-call.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';

/** A refusal of the core becomes the command's one-line error (exit code 1). */
async function plainly<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof ServiceError ? new Error(error.message) : error;
  }
}

async function withCore(options: CliOptions, work: (core: Core, dir: string) => Promise<void>): Promise<number> {
  const { dir, file } = databasePath(options);
  const core = createCore({ file });
  try {
    await work(core, dir);
    return 0;
  } finally {
    core.close();
  }
}

/** `backup [--out FILE]`: into the data folder's backups/ (kept until removed), or to FILE (which must not exist). */
export const runBackup = (options: CliOptions): Promise<number> =>
  withCore(options, async (core, dir) => {
    const out = options.out === undefined ? undefined : resolve(options.out);
    const made = await plainly(() => core.backups.create('manual', out));
    print({ ...made, path: out ?? join(dir, 'backups', made.name) });
  });

/** `backups list`: the data folder's backups, newest first. */
export function runBackupsCommand(sub: string | undefined, options: CliOptions): Promise<number> {
  if (sub !== 'list') throw new Error(`unknown backups command ${sub ?? '(none)'}; use list`);
  return withCore(options, async (core) => print(core.backups.list()));
}

/**
 * `restore FILE`: a file anywhere, or the name of one in the data folder's backups/. The copy is
 * one SQLite transaction on the live file, so an app running on the same folder is not harmed:
 * it sees the old data or the restored data, never a mix.
 */
export function runRestore(target: string | undefined, options: CliOptions): Promise<number> {
  if (target === undefined) throw new Error('restore needs the FILE to restore (or the name of a backup, see backups list)');
  return withCore(options, async (core, dir) => {
    const inFolder = join(dir, 'backups', target);
    const source = !target.includes('/') && !target.includes('\\') && existsSync(inFolder) ? inFolder : resolve(target);
    const { saved } = await plainly(() => core.backups.restore(source));
    print({ restored: source, saved: { ...saved, path: join(dir, 'backups', saved.name) } });
  });
}
