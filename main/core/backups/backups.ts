import BetterSqlite3, { type Database } from 'better-sqlite3';
import { chmodSync, existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { copyCounted } from '../jobs/copy-counted.js';
import { basename, dirname, join } from 'node:path';
import type { BackupInfo, BackupKind, RestoreReply } from '../../../shared/backups.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { bindingOption, createPrivateFile, PRIVATE_FILE_MODE } from '../store/database-file.js';
import { liveShape, refused } from './check.js';
import type { JobPhase, JobProgress } from '../../../shared/jobs.js';
import { runSideTask, SideTaskFailed, type SideLauncher } from '../jobs/side-process.js';
import type { SideTasks } from '../jobs/side-tasks.js';
import { backupName, ensureFolder, isBackupName, listBackups } from './files.js';
import { processAlive } from '../process-alive.js';
import type { CoreEvents } from '../events.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long checking a file to restore may take (`integrity_check` reads every page: minutes for gigabytes); past it the file is refused. */
const RESTORE_CHECK_MS = 15 * 60_000;

const restoreCancelled = (cause?: unknown): Error => new Error('the restore was cancelled: nothing was changed', { cause });

/** What a restore run as a job is given: its Cancel, and where it says how far it got. */
export interface RestoreSteps {
  signal?: AbortSignal | undefined;
  progress?: ((update: Partial<Pick<JobProgress, 'phase' | 'bytes' | 'cancellable'>>) => void) | undefined;
}

/**
 * The file to restore copied to a private working copy (with the WAL of a database copied while
 * its program ran), saying how far it got, stopped by a Cancel; off the event loop.
 */
async function copyWork(source: string, work: string, steps: RestoreSteps): Promise<void> {
  const copy = async (from: string, to: string, before: number): Promise<void> =>
    copyCounted(from, to, { signal: steps.signal, onBytes: (bytes) => steps.progress?.({ bytes: before + bytes }), mode: PRIVATE_FILE_MODE });
  try {
    await copy(source, work, 0);
    if (existsSync(`${source}-wal`)) await copy(`${source}-wal`, `${work}-wal`, statSync(source).size);
  } catch (error) {
    if (steps.signal?.aborted) throw restoreCancelled(error);
    throw refused(`cannot read ${basename(source)} (${error instanceof Error ? error.message : String(error)})`, error);
  }
}

export interface BackupsOptions {
  db: Database;
  /** The live database file, or undefined in memory (no backups). */
  file: string | undefined;
  clock: Clock;
  nativeBinding: string | undefined;
  /** Where a failed daily backup is told (the host's log). */
  events: CoreEvents;
  /** How its side processes are started (jobs/side-process.ts). */
  launcher?: SideLauncher | undefined;
  /** How many daily backups to keep (the setting, read at each daily run). */
  keepDaily: () => number;
  /** Drops what this process keeps in memory about the data, after a restore replaced it. */
  forget: () => void;
  /** Why a restore must wait now (an import running, which would go on writing into the restored data), or undefined. */
  busy: () => string | undefined;
  /**
   * Has writers on other connections of this process (an import: store/long-write.ts) commit and
   * wait; answers how to let them go on. The online backup starts over at every write made by
   * another connection than its own: it would not end while an import runs.
   */
  pauseOtherWriters?: () => () => void;
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
      const resume = this.o.pauseOtherWriters?.();
      try {
        await this.o.db.backup(partial);
      } finally {
        resume?.();
      }
      // The copy took the live database's WAL mode; a backup is one self-contained file.
      const copy = new BetterSqlite3(partial, bindingOption(this.o.nativeBinding));
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
   * after checking it (see prepareCandidate) and backing up the current state first. A refused or
   * cancelled restore changes nothing and leaves no new backup. The file is read, checked and
   * copied in by side processes (jobs/side-process.ts): a damaged or hostile file costs them, and
   * the copy-in, which takes as long as the data is big, never holds this process's event loop.
   */
  restore(source: string, steps: RestoreSteps = {}): Promise<RestoreReply> {
    const step = (phase: JobPhase): void => {
      if (steps.signal?.aborted) throw restoreCancelled();
      steps.progress?.({ phase });
    };
    return this.exclusive(async () => {
      const busy = this.o.busy();
      if (busy !== undefined) throw new ServiceError('CONFLICT', `cannot restore now: ${busy}`, 'name');
      const { file, folder } = this.live();
      ensureFolder(folder);
      const work = join(folder, `.restore-${this.o.clock.now()}-${process.pid}.sqlite`);
      this.restoring = true;
      let saved: BackupInfo | undefined;
      let replacing = false;
      try {
        step('reading');
        await copyWork(source, work, steps);
        chmodSync(work, PRIVATE_FILE_MODE);
        step('checking');
        await this.side('prepare-backup', { copy: work, live: liveShape(this.o.db) }, steps.signal, RESTORE_CHECK_MS);
        step('saving');
        saved = await this.copyOut('before-restore', undefined);
        step('restoring');
        // From here it runs to its end: killed half-way the copy would change nothing (one
        // transaction), but one that had just committed would be reported cancelled.
        steps.progress?.({ cancellable: false });
        replacing = true;
        // The side process holds the live file's write lock for the copy. A write of this process
        // meanwhile would wait for it in the busy handler, freezing the event loop for up to 5 s;
        // with no wait it is refused at once (503 STORAGE_BUSY, Retry-After: 1), as when another
        // program holds the lock. Reads are never blocked (WAL).
        const busyTimeout = Number(this.o.db.pragma('busy_timeout', { simple: true }));
        this.o.db.pragma('busy_timeout = 0');
        try {
          // Limited as the check: another program holding the write lock would hold it forever.
          await this.side('copy-into', { source: work, target: file }, undefined, RESTORE_CHECK_MS);
        } finally {
          // The app may have closed meanwhile (it waits for this step: jobs.ts finishUncancellable).
          if (this.o.db.open) this.o.db.pragma(`busy_timeout = ${busyTimeout}`);
        }
        if (this.o.db.open) this.o.forget();
        return { restored: basename(source), saved };
      } catch (error) {
        // The backup of the state a cancelled or refused restore did not replace is not needed;
        // once the copy-in has begun, whether it replaced the data cannot be told from here: kept.
        if (saved !== undefined && !replacing) rmSync(join(folder, saved.name), { force: true });
        throw error;
      } finally {
        this.restoring = false;
        for (const leftover of readdirSync(folder)) if (leftover.startsWith(basename(work))) rmSync(join(folder, leftover), { force: true });
      }
    });
  }

  /** A side task on a file being restored; its refusal as the restore's, in words. */
  private async side<N extends 'prepare-backup' | 'copy-into'>(name: N, input: Parameters<SideTasks[N]>[0], signal: AbortSignal | undefined, timeoutMs: number | undefined): Promise<void> {
    try {
      await runSideTask(name, input, { signal, timeoutMs, nativeBinding: this.o.nativeBinding, launcher: this.o.launcher });
    } catch (error) {
      if (!(error instanceof SideTaskFailed)) throw error;
      if (error.why === 'cancelled') throw restoreCancelled(error);
      // The task's own refusals are already in words; the rest say what stopped it.
      throw refused(name === 'prepare-backup' && error.why === 'failed' ? `the file could not be checked: ${error.message}` : error.message.replace(/; nothing was changed$/, ''), error);
    }
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
        if (!this.stopped) this.o.events.emit({ kind: 'daily-backup-failed', error });
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
}
