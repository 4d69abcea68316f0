import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { processAlive } from '../process-alive.js';
import { newUuid } from '../store/new-uuid.js';

/**
 * A folder of the data folder where jobs keep their files: `imports/` for uploads waiting for
 * their import, `exports/` for exports waiting to be downloaded. Each file is named with the pid
 * of the process that wrote it, so that one left by a process that died is swept and one another
 * live process uses is not. A database in memory gets a private folder of its own in the
 * system's temporary folder (a shared, predictable one there could be another user's).
 */
export class Spool {
  private dir: string | undefined;
  /** The private folder made for a database in memory, removed at close. */
  private temporary: string | undefined;
  private readonly named: RegExp;

  constructor(
    dir: string | undefined,
    /** What its files are, in their names: `.upload-PID-…`, `.export-PID-…`. */
    private readonly prefix: string,
  ) {
    this.dir = dir;
    this.named = new RegExp(`^\\.${prefix}-(\\d+)-`);
    if (dir !== undefined) this.sweep(dir);
  }

  /** A new file's path, with `suffix` (an extension); not created. */
  path(suffix = '.part', id: string = newUuid()): string {
    this.dir ??= this.temporary = mkdtempSync(join(tmpdir(), `poi-${this.prefix}s-`));
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    return join(this.dir, `.${this.prefix}-${process.pid}-${id}${suffix}`);
  }

  /** The spool's files older than `ms`, removed (exports nobody fetched). */
  removeOlderThan(ms: number, now: number): void {
    if (this.dir === undefined) return;
    for (const entry of this.entries(this.dir)) {
      const file = join(this.dir, entry);
      if (this.named.test(entry) && now - (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? now) > ms) rmSync(file, { force: true });
    }
  }

  close(): void {
    if (this.temporary !== undefined) rmSync(this.temporary, { recursive: true, force: true });
  }

  private entries(dir: string): string[] {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  }

  private sweep(dir: string): void {
    for (const entry of this.entries(dir)) {
      const pid = this.named.exec(entry)?.[1];
      if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(dir, entry), { force: true });
    }
  }
}
