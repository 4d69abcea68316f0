import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openCore, type OpenCore } from './core.js';

/**
 * Cores over a real SQLite file each, in a new folder each, closed and removed after every test
 * of the file that calls this at its top. `release` closes one early (a property's run).
 */
export function fileCores(prefix: string): { fileCore: () => OpenCore; release: (core: OpenCore) => void } {
  const dirs: string[] = [];
  const cores: OpenCore[] = [];
  afterEach(() => {
    for (const core of cores.splice(0)) core.close();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    fileCore: () => {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      const core = openCore({ file: join(dir, 'poi.sqlite') });
      cores.push(core);
      return core;
    },
    release: (core) => {
      core.close();
      cores.splice(cores.indexOf(core), 1);
    },
  };
}
