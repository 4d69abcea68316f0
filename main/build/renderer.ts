import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { rendererDir } from './renderer-dir.js';

const root = join(import.meta.dirname, '..', '..');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, entry));
    if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

/** True when the built UI is missing or older than its sources (renderer/ or shared/). */
function rendererIsStale(dir = rendererDir()): boolean {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return true;
  const built = statSync(index).mtimeMs;
  return newestMtime(join(root, 'renderer')) > built || newestMtime(join(root, 'shared')) > built;
}

/**
 * Builds the admin UI with Vite into `dir`. It is built into a private folder next to it, then
 * swapped in: two builds at once (two servers starting on a fresh clone) never write into the
 * same folder, and a running server never serves a half-emptied one.
 */
export function buildRenderer(dir = rendererDir()): void {
  const suffix = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const fresh = `${dir}.build-${suffix}`;
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn', '--outDir', fresh, '--emptyOutDir'],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) {
    rmSync(fresh, { recursive: true, force: true });
    throw new Error('building the admin UI failed (see above)');
  }
  const old = `${dir}.old-${suffix}`;
  try {
    renameSync(dir, old);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  try {
    renameSync(fresh, dir);
  } catch (error) {
    // Another build was swapped in meanwhile: from the same sources, it is as good as this one.
    if (!existsSync(join(dir, 'index.html'))) throw error;
  }
  rmSync(fresh, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}

/** Builds the admin UI when it is missing or older than its sources: `npm start` and `cli serve`. */
export function ensureRenderer(log: (line: string) => void = console.log): void {
  if (!rendererIsStale()) return;
  log('Building the admin UI...');
  buildRenderer();
}

if (process.argv[1] && import.meta.filename === process.argv[1]) buildRenderer();
