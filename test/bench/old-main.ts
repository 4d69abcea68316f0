import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './server-child.js';

/** The main the writes bench compares with by default (`--old REF` chooses another commit). */
export const DEFAULT_OLD = '39586ae';

/** Another commit checked out beside this tree, for the run. */
export interface OldTree {
  /** Its work tree: a detached git worktree in a temporary folder, this tree's node_modules linked in. */
  tree: string;
  /** The abbreviated commit it holds. */
  commit: string;
  /** Removes the worktree (and git's record of it); safe to call twice. */
  remove(): void;
}

/** Whether this repository holds `ref` (a shallow clone may not): null if so, else why not. */
export function missingCommit(ref: string): string | null {
  const probe = spawnSync('git', ['cat-file', '-e', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' });
  if (probe.error) return `git could not run: ${probe.error.message}`;
  return probe.status === 0 ? null : `this repository has no commit ${ref} (a shallow clone?): ${probe.stderr.trim() || `git cat-file exited ${probe.status}`}`;
}

/**
 * `git worktree add --detach TMP REF`, with this tree's node_modules linked in (the older commit
 * runs with the same packages; sync-baseline.ts does the same for the sync bench).
 */
export function addOldTree(ref: string = DEFAULT_OLD): OldTree {
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const tree = mkdtempSync(join(tmpdir(), 'poi-bench-old-'));
  execFileSync('git', ['worktree', 'add', '--detach', tree, commit], { cwd: ROOT, stdio: 'ignore' });
  let removed = false;
  const remove = (): void => {
    if (removed) return;
    removed = true;
    process.off('exit', remove);
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT, stdio: 'ignore' });
    rmSync(tree, { recursive: true, force: true });
  };
  // Ctrl-C in `npm run bench` exits without running the callers' finally blocks.
  process.once('exit', remove);
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
  } catch (error) {
    remove();
    throw error;
  }
  return { tree, commit, remove };
}

/** What a tree's own fill leaves for the bench: the client the POIs belong to and its token. */
export interface Seeded {
  clientId: string;
  token: string;
  /** The POIs' ids run from 1 to this (a fresh file). */
  maxId: number;
  fillMs: number;
}

/**
 * Run by each tree for itself, so that an older commit's file is written by its own migrations
 * and triggers: test/bench/fill.ts's fillPois through the tree's own core, then an administrator
 * token, no daily backup in the served child (scale.ts says why), and the WAL checkpointed so
 * that the file can be copied alone. Written beside that tree's fill.ts for the run, removed after.
 */
const FILL_DRIVER = `import { openCore } from '../support/core.js';
import { fillPois } from './fill.js';
const [file, count] = process.argv.slice(2);
const core = openCore({ file, geocoder: { reverse: async () => ({}) } });
try {
  const filled = fillPois(core, Number(count));
  const token = core.clients.rotateAdminToken(filled.clientId);
  core.settings.setBackups({ keepDaily: 0 });
  const maxId = core.db.prepare('SELECT max(id) FROM pois').pluck().get();
  core.db.pragma('wal_checkpoint(TRUNCATE)');
  process.stdout.write('RESULT ' + JSON.stringify({ clientId: filled.clientId, token, maxId, fillMs: filled.fillMs }) + '\\n');
} finally {
  core.close();
}
`;

/** Fills `file` (created) with `count` POIs by `tree`'s own code, in a child process. */
export function fillWithTree(tree: string, file: string, count: number): Promise<Seeded> {
  const driver = join(tree, 'test/bench', `.writes-fill-${process.pid}-${Date.now()}.mts`);
  if (!existsSync(join(tree, 'test/bench/fill.ts'))) return Promise.reject(new Error(`${tree} has no test/bench/fill.ts to fill its database with`));
  writeFileSync(driver, FILL_DRIVER);
  return new Promise<Seeded>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', driver, file, String(count)], { cwd: tree, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.once('exit', (code) => {
      rmSync(driver, { force: true });
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) reject(new Error(`filling ${file} with the code of ${tree} failed (exit ${code}):\n${out.slice(-2000)}`));
      else resolve(JSON.parse(line.slice(7)) as Seeded);
    });
  });
}
