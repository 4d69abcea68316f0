import BetterSqlite3, { type Database } from 'better-sqlite3';
import { chmodSync, constants, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { BackupInfo, BackupKind } from '../../../shared/backups.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { createPrivateFile, PRIVATE_FILE_MODE } from '../store/database-file.js';
import { prepareCandidate, refused } from './check.js';
import { backupName, ensureFolder, isBackupName, listBackups } from './files.js';
import { processAlive } from '../process-alive.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** better-sqlite3 copies at most this many pages per step: a restore is one step, so one transaction. */
const ALL_PAGES = 0x7fffffff;

export interface BackupsOptions {
  db: Database;
  /** The live database file, or undefined in memory (no backups). */
  file: string | undefined;
  clock: Clock;
  nativeBinding: string | undefined;
  /** How many daily backups to keep (the setting, read at each daily run). */
  keepDaily: () => number;
  /** Drops what this process keeps in memory about the data, after a restore replaced it. */
  forget: () => void;
  /** Why a restore must wait now (an import running, which would go on writing into the restored data), or undefined. */
  busy: () => string | undefined;
}

/**
 * Backups of the live database into the data folder's `backups/`, and restores from them.
 *
 * A backup is SQLite's online backup (`db.backup`): it copies pages a hundred at a time between
 * turns of the event loop, so the service keeps answering; writes made meanwhile through this
 * connection are carried into the copy by SQLite, and a write from another process restarts it.
 * Each is written under a `.partial` name, turned into a one-file database (rollback journal),
 * then renamed: the list never shows half a backup.
 *
 * A restore copies the candidate INTO the live database with the same backup API, in one step.
 * That is one write transaction on the live file: other connections (this core's, another
 * process's `serve`) keep their handles and prepared statements and see either the old data or
 * the restored data, never a mix; the WAL stays consistent. Closing the core's connection and
 * renaming a file over `poi.sqlite` instead would leave every open connection (and the WAL and
 * shared-memory files beside it) pointing at the old inode, or mixing old WAL frames with a new
 * file. The price: the copy holds the write lock for its duration (see restore for the writes
 * arriving meanwhile).
 */
/** A restore's working copy, named by its time and the restoring process (restore, below). */
const RESTORE_WORK = /^\.restore-\d+-(\d+)\.sqlite(?:-wal|-shm|-journal)?$/;

/**
 * A restore killed mid-way (a crash, SIGKILL) leaves its working copy (as big as the database)
 * with its WAL and shared memory: swept at start, unless the process that made it still runs (the
 * CLI restoring beside the app).
 */
function sweepRestores(folder: string): void {
  for (const entry of readdirSync(folder)) {
    const pid = RESTORE_WORK.exec(entry)?.[1];
    if (pid !== undefined && !processAlive(Number(pid))) rmSync(join(folder, entry), { force: true });
  }
}

export class Backups {
  readonly folder: string | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly o: BackupsOptions) {
    this.folder = o.file === undefined ? undefined : join(dirname(o.file), 'backups');
    if (this.folder !== undefined && existsSync(this.folder)) sweepRestores(this.folder);
  }

  list(): BackupInfo[] {
    return listBackups(this.folder);
  }

  /** One at a time: two copies at once would only slow each other, and a restore must not meet a backup. */
  /** A restore is under way: no import may start (it would write into data about to be replaced). */
  restoring = false;

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => undefined);
    return next;
  }

  private live(): { file: string; folder: string } {
    if (this.o.file === undefined || this.folder === undefined) throw refused('an in-memory database has no backups');
    return { file: this.o.file, folder: this.folder };
  }

  /** Backs up into `backups/` (or to `out`, which must not exist yet), private (0600). */
  create(kind: BackupKind, out?: string): Promise<BackupInfo> {
    return this.exclusive(() => this.copyOut(kind, out));
  }

  private async copyOut(kind: BackupKind, out: string | undefined): Promise<BackupInfo> {
    const { folder } = this.live();
    if (out === undefined) ensureFolder(folder);
    const now = this.o.clock.now();
    let target = out ?? join(folder, backupName(kind, now));
    for (let n = 1; out === undefined && existsSync(target); n++) target = join(folder, backupName(kind, now, n));
    if (out !== undefined && existsSync(out)) throw refused(`${out} already exists`);
    const partial = `${target}.partial`;
    createPrivateFile(partial);
    try {
      await this.o.db.backup(partial);
      // The copy took the live database's WAL mode; a backup is one self-contained file.
      const copy = new BetterSqlite3(partial, this.binding());
      try {
        copy.pragma('journal_mode = DELETE');
      } finally {
        copy.close();
      }
      renameSync(partial, target);
    } catch (error) {
      rmSync(partial, { force: true });
      throw error;
    }
    return { name: basename(target), kind, takenAt: new Date(now).toISOString(), bytes: statSync(target).size };
  }

  /** The path of a backup in the folder, by the name the list gives; anything else is not found. */
  pathOf(name: string): string {
    const { folder } = this.live();
    if (!isBackupName(name) || !existsSync(join(folder, name))) throw new ServiceError('NOT_FOUND', `no backup named ${name}`, 'name');
    return join(folder, name);
  }

  remove(name: string): void {
    rmSync(this.pathOf(name));
  }

  /**
   * Replaces the live data with a backup's (a file in the folder, or any file the CLI names),
   * after checking it (see prepareCandidate) and backing up the current state first. A refused
   * file changes nothing and leaves no new backup.
   */
  restore(source: string): Promise<{ saved: BackupInfo }> {
    return this.exclusive(async () => {
      const busy = this.o.busy();
      if (busy !== undefined) throw new ServiceError('CONFLICT', `cannot restore now: ${busy}`, 'name');
      const { file, folder } = this.live();
      ensureFolder(folder);
      const work = join(folder, `.restore-${this.o.clock.now()}-${process.pid}.sqlite`);
      this.restoring = true;
      try {
        try {
          // Off the event loop: a database of gigabytes copied with copyFileSync held every request.
          await copyFile(source, work, constants.COPYFILE_EXCL);
          // A database copied while its program ran may have commits still in its WAL.
          if (existsSync(`${source}-wal`)) await copyFile(`${source}-wal`, `${work}-wal`, constants.COPYFILE_EXCL);
        } catch (error) {
          throw refused(`cannot read ${basename(source)} (${error instanceof Error ? error.message : String(error)})`);
        }
        chmodSync(work, PRIVATE_FILE_MODE);
        prepareCandidate(work, this.o.db, this.o.nativeBinding);
        const saved = await this.copyOut('before-restore', undefined);
        const candidate = new BetterSqlite3(work, { readonly: true, ...this.binding() });
        // better-sqlite3 takes the live file's write lock in a first, empty step and copies in the
        // next turn of the event loop. A write of this process in between would wait for the lock
        // in the busy handler, blocking that very turn: 5 s of frozen service, then a failure. With
        // no wait it is refused at once (503 STORAGE_BUSY, Retry-After: 1), as when another
        // program holds the lock. Other processes wait as usual, and reads are never blocked.
        const busyTimeout = Number(this.o.db.pragma('busy_timeout', { simple: true }));
        this.o.db.pragma('busy_timeout = 0');
        try {
          await candidate.backup(file, { progress: () => ALL_PAGES });
        } finally {
          this.o.db.pragma(`busy_timeout = ${busyTimeout}`);
          candidate.close();
        }
        this.o.forget();
        return { saved };
      } finally {
        this.restoring = false;
        for (const leftover of readdirSync(folder)) if (leftover.startsWith(basename(work))) rmSync(join(folder, leftover), { force: true });
      }
    });
  }

  /**
   * The daily backup, when the last one is a day old or more (or there is none), then the oldest
   * daily ones beyond the setting removed. Manual and before-restore backups are never pruned.
   */
  async dailyIfDue(): Promise<BackupInfo | undefined> {
    if (this.o.file === undefined) return undefined;
    const keep = this.o.keepDaily();
    if (keep === 0) return undefined;
    const [last] = this.list().filter((b) => b.kind === 'daily');
    const due = last === undefined || this.o.clock.now() - Date.parse(last.takenAt) >= DAY_MS;
    const taken = due ? await this.create('daily') : undefined;
    this.prune(keep);
    return taken;
  }

  private prune(keep: number): void {
    if (this.folder === undefined) return;
    for (const old of this.list().filter((b) => b.kind === 'daily').slice(keep)) rmSync(join(this.folder, old.name), { force: true });
  }

  /**
   * Checks whether the daily backup is due a minute after start (out of the way of start-up and
   * warm-up), then hourly: a computer that sleeps or is switched off at night still gets one within
   * the hour of running again. The timers never keep the process alive, and stop when the core
   * closes; a backup cut short by closing is removed and not reported.
   */
  startDaily(): void {
    if (this.timer !== undefined || this.o.file === undefined) return;
    this.stopped = false;
    const tick = (): void => {
      this.dailyIfDue().catch((error: unknown) => {
        if (!this.stopped) console.error('daily backup failed:', error instanceof Error ? error.message : error);
      });
    };
    this.timer = setTimeout(() => {
      tick();
      this.timer = setInterval(tick, 60 * 60 * 1000);
      this.timer.unref();
    }, 60 * 1000);
    this.timer.unref();
  }

  stopDaily(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private binding(): { nativeBinding?: string } {
    return this.o.nativeBinding ? { nativeBinding: this.o.nativeBinding } : {};
  }
}
