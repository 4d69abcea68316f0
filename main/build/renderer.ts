import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
export const RENDERER_INDEX = join(root, 'dist', 'renderer', 'index.html');

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    const stat = statSync(join(dir, entry));
    if (stat.isFile()) newest = Math.max(newest, stat.mtimeMs);
  }
  return newest;
}

/** True when the built UI is missing or older than its sources (renderer/ or shared/). */
export function rendererIsStale(): boolean {
  if (!existsSync(RENDERER_INDEX)) return true;
  const built = statSync(RENDERER_INDEX).mtimeMs;
  return newestMtime(join(root, 'renderer')) > built || newestMtime(join(root, 'shared')) > built;
}

/** Builds the admin UI with Vite into dist/renderer. */
export function buildRenderer(): void {
  const result = spawnSync(join(root, 'node_modules', '.bin', 'vite'), ['build', '--config', 'renderer/vite.config.ts', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('building the admin UI failed (see above)');
}

if (process.argv[1] && import.meta.filename === process.argv[1]) buildRenderer();
