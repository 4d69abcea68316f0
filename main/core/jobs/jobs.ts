import type { Database, Statement } from 'better-sqlite3';
import type { ImportReport } from '../../../shared/exports.js';
import type { UndoReply } from '../../../shared/wire.js';
import { isImportJob, KEPT_JOBS, REPORT_ENTRIES_SHOWN, type JobKind, type JobProgress, type JobState, type JobView } from '../../../shared/jobs.js';
import type { Clock } from '../clock.js';
import type { CoreEvents } from '../events.js';
import { ServiceError } from '../errors.js';
import { newUuid } from '../store/new-uuid.js';
import { SYSTEM, type WritePath } from '../store/write-path.js';
import { processAlive } from '../process-alive.js';

/** What a job's work is given: the cancel, and where to say how far it got. */
export interface JobContext {
  id: string;
  signal: AbortSignal;
  progress(update: Partial<Omit<JobProgress, 'cancelling'>>): void;
}

/** Why a job marked running is not: the app stopped in it, or a restored backup was taken while it ran. */
export type JobLost = 'stopped' | 'restored';

/** How the message about such a job begins, by why, naming what it was ("import", "undo"). */
export const LOST: Record<JobLost, (what: string) => string> = {
  stopped: (what) => `The app stopped while this ${what} ran`,
  restored: (what) => `The data was restored from a backup taken while this ${what} ran`,
};

/** How a job's work ended. */
export interface JobOutcome {
  state: Exclude<JobState, 'running' | 'interrupted'>;
  report: JobView['report'];
  error: string | null;
}

/** A job's work stopped by an error: cancelled if a Cancel was asked for (the error is its effect), else failed with it. */
export function cancelledOr(job: JobContext, error: unknown): JobOutcome {
  if (job.signal.aborted) return { state: 'cancelled', report: null, error: null };
  throw error;
}

export interface JobSpec {
  kind: JobKind;
  clientId: string | null;
  label: string;
  target: string | null;
  totalBytes: number | null;
  totalRows?: number | null;
}

interface JobRow {
  id: string;
  kind: JobKind;
  client_id: string | null;
  label: string;
  target: string | null;
  state: JobState;
  pid: number;
  instance: string;
  seen_at: number;
  started_at: number;
  ended_at: number | null;
  progress: string;
  report: string | null;
  error: string | null;
}

interface Running {
  view: JobView;
  controller: AbortController;
  done: Promise<JobView>;
}

/** How many jobs a list shows. */
const LISTED = 50;
/** How often a running job says it is alive (its row's `seen_at`). */
const HEARTBEAT_MS = 10_000;
/** A running job not seen alive for this long is taken for dead, whatever its pid says (the pid may be another program's now). */
const DEAD_AFTER_MS = 6 * HEARTBEAT_MS;
/** This start of this process: a pid alone does not tell it from an earlier start (a container's process is pid 1 every time). */
const INSTANCE = newUuid();

const shortened = (view: JobView): JobView => {
  if (!isImportJob(view) || view.report === null) return view;
  const report = view.report;
  const cut = <T>(list: T[]): T[] => list.slice(0, REPORT_ENTRIES_SHOWN);
  return { ...view, report: { ...report, refused: cut(report.refused), refusedGroups: report.refusedGroups && cut(report.refusedGroups), possibleDuplicates: cut(report.possibleDuplicates), identical: cut(report.identical) } };
};

// The row's kind says what its report is (written by this class from a JobView of that kind).
const viewOf = (row: JobRow): JobView => ({
  id: row.id,
  kind: row.kind,
  clientId: row.client_id,
  label: row.label,
  target: row.target,
  state: row.state,
  // Jobs kept from before steps and Cancel's end have neither: they had no steps, and could be cancelled.
  progress: { phase: null, cancellable: true, totalRows: null, ...(JSON.parse(row.progress) as Partial<JobProgress>) } as JobProgress,
  startedAt: row.started_at,
  endedAt: row.ended_at,
  report: row.report === null ? null : (JSON.parse(row.report) as ImportReport & UndoReply),
  error: row.error,
}) as JobView;

/**
 * Long work as jobs: `start` answers at once with the job, which runs on; its progress is read
 * with `get`, it is cancelled with `cancel` (the work sees its signal and undoes what it wrote),
 * and its row, with the report, is kept in the database afterwards (the last KEPT_JOBS). No
 * request's deadline decides whether the work happens: only a Cancel does.
 */
export class Jobs {
  private readonly running = new Map<string, Running>();
  private abandoned = false;
  private readonly insert: Statement<[JobRow]>;
  private readonly finish: Statement<[{ id: string; state: JobState; ended_at: number; progress: string; report: string | null; error: string | null }]>;
  private readonly byId: Statement<[string], JobRow>;
  private readonly recent: Statement<[number], JobRow>;
  private readonly recentOfClient: Statement<[string, number], JobRow>;
  private readonly prune: Statement<[number]>;
  private readonly stale: Statement<[], JobRow>;
  private readonly claim: Statement<[{ id: string; ended_at: number; error: string }]>;
  private readonly heartbeat: Statement<[number, string]>;
  private beating: NodeJS.Timeout | undefined;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly events: CoreEvents,
  ) {
    this.insert = db.prepare(
      'INSERT INTO jobs (id, kind, client_id, label, target, state, pid, instance, seen_at, started_at, ended_at, progress, report, error) VALUES (@id, @kind, @client_id, @label, @target, @state, @pid, @instance, @seen_at, @started_at, @ended_at, @progress, @report, @error)',
    );
    // Taken by one process only: two starting at once must not both undo the same import.
    this.claim = db.prepare("UPDATE jobs SET state = 'interrupted', ended_at = @ended_at, error = @error WHERE id = @id AND state = 'running'");
    this.heartbeat = db.prepare("UPDATE jobs SET seen_at = ? WHERE id = ? AND state = 'running'");
    this.finish = db.prepare('UPDATE jobs SET state = @state, ended_at = @ended_at, progress = @progress, report = @report, error = @error WHERE id = @id');
    this.byId = db.prepare('SELECT * FROM jobs WHERE id = ?');
    this.recent = db.prepare('SELECT * FROM jobs ORDER BY started_at DESC, id DESC LIMIT ?');
    this.recentOfClient = db.prepare('SELECT * FROM jobs WHERE client_id = ? ORDER BY started_at DESC, id DESC LIMIT ?');
    this.prune = db.prepare("DELETE FROM jobs WHERE state != 'running' AND id NOT IN (SELECT id FROM jobs WHERE state != 'running' ORDER BY started_at DESC, id DESC LIMIT ?)");
    this.stale = db.prepare("SELECT * FROM jobs WHERE state = 'running'");
  }

  /**
   * The jobs a process died in (another process on the same file may be running its own), and, after
   * a restore, those a backup brought back as running: each is marked interrupted, after `recover`
   * undid what it wrote and said how that went.
   */
  recoverInterrupted(recover: (job: JobView, cause: JobLost) => string): JobView[] {
    const now = this.clock.now();
    // One of this start's own rows not running here came back with a restored backup.
    const dead = (row: JobRow): boolean =>
      row.instance === INSTANCE ? !this.running.has(row.id) : row.pid === process.pid || !processAlive(row.pid) || now - row.seen_at > DEAD_AFTER_MS;
    const recovered: JobView[] = [];
    for (const row of this.stale.all().filter(dead)) {
      const claimed = this.writes.now(SYSTEM, () => this.claim.run({ id: row.id, ended_at: now, error: 'being undone' }).changes === 1);
      if (!claimed) continue;
      const view = viewOf(row);
      // One of this start's own rows, not running here: it came back with a restored backup.
      const error = recover(view, row.instance === INSTANCE ? 'restored' : 'stopped');
      this.writes.now(SYSTEM, () => this.finish.run({ id: row.id, state: 'interrupted', ended_at: now, progress: row.progress, report: row.report, error }));
      recovered.push({ ...view, state: 'interrupted', error });
    }
    return recovered;
  }

  /** A job running here, of this client or of any, of these kinds or of any: one import at a time per client, and no restore under a running import. */
  runningFor(which: { clientId?: string; kinds?: readonly JobKind[] } = {}): JobView | undefined {
    for (const { view } of this.running.values()) {
      if ((which.clientId === undefined || view.clientId === which.clientId) && (which.kinds === undefined || which.kinds.includes(view.kind))) return { ...view };
    }
    return undefined;
  }

  /** Starts the work as a job of the spec's kind, answered at once (a view of that kind, its report null). */
  start<K extends JobKind>(spec: JobSpec & { kind: K }, work: (job: JobContext) => Promise<JobOutcome>): Extract<JobView, { kind: K }> {
    const id = newUuid(this.clock.now());
    const controller = new AbortController();
    const view = {
      id,
      kind: spec.kind,
      clientId: spec.clientId,
      label: spec.label,
      target: spec.target,
      state: 'running',
      progress: { rows: 0, totalRows: spec.totalRows ?? null, bytes: 0, totalBytes: spec.totalBytes, cancelling: false, undoing: null, phase: null, cancellable: true },
      startedAt: this.clock.now(),
      endedAt: null,
      report: null,
      error: null,
    } as JobView;
    this.writes.now(SYSTEM, () =>
      this.insert.run({ id, kind: view.kind, client_id: view.clientId, label: view.label, target: view.target, state: 'running', pid: process.pid, instance: INSTANCE, seen_at: view.startedAt, started_at: view.startedAt, ended_at: null, progress: JSON.stringify(view.progress), report: null, error: null }),
    );
    const context: JobContext = {
      id,
      signal: controller.signal,
      progress: (update) => Object.assign(view.progress, update),
    };
    const done = (async (): Promise<JobView> => {
      // The caller has its answer (the job) before any of the work runs.
      await new Promise((resolve) => setImmediate(resolve));
      let outcome: JobOutcome;
      try {
        outcome = await work(context);
      } catch (error) {
        outcome = { state: 'failed', report: null, error: error instanceof Error ? error.message : String(error) };
      }
      Object.assign(view, { state: outcome.state, report: outcome.report, error: outcome.error, endedAt: this.clock.now() });
      view.progress.cancelling = false;
      if (!this.abandoned) await this.recordEnd(view);
      this.running.delete(id);
      if (this.running.size === 0) this.stopBeating();
      return view;
    })();
    this.running.set(id, { view, controller, done });
    this.startBeating();
    // Built above from the spec's kind, with no report yet: a view of that kind.
    return { ...view, progress: { ...view.progress } } as Extract<JobView, { kind: K }>;
  }

  /** A job by id, or undefined (an import made before jobs, or one older than the last KEPT_JOBS). */
  find(id: string): JobView | undefined {
    const live = this.running.get(id);
    if (live) return { ...live.view, progress: { ...live.view.progress } };
    const row = this.byId.get(id);
    return row && this.asStored(row);
  }

  get(id: string): JobView {
    const job = this.find(id);
    if (!job) throw new ServiceError('NOT_FOUND', `no job ${id}: it may be older than the last ${KEPT_JOBS} jobs`, 'id');
    return job;
  }

  /** The newest jobs first, of one client or of all, their reports' lists cut to what is shown (REPORT_ENTRIES_SHOWN). */
  list(clientId?: string): JobView[] {
    const rows = clientId === undefined ? this.recent.all(LISTED) : this.recentOfClient.all(clientId, LISTED);
    return rows.map((row) => shortened(this.running.has(row.id) ? this.get(row.id) : this.asStored(row)));
  }

  /**
   * Asks the job to stop; it ends cancelled once its work has undone what it wrote. A job already
   * ended, or past the step where it can stop (`cancellable`), is left as it is.
   */
  cancel(id: string): JobView {
    const live = this.running.get(id);
    if (live?.view.progress.cancellable) {
      live.view.progress.cancelling = true;
      live.controller.abort();
    }
    return this.get(id);
  }

  /** The job once it has ended. */
  async whenDone(id: string): Promise<JobView> {
    const live = this.running.get(id);
    return live ? { ...(await live.done) } : this.get(id);
  }

  /**
   * The job's end, kept: tried again for a while when the database refuses (busy, full). Left
   * running, a finished import would be taken for one the app died in, and undone at the next start.
   */
  private async recordEnd(view: JobView): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.writes.now(SYSTEM, () => {
          const ended = { id: view.id, state: view.state, ended_at: view.endedAt!, progress: JSON.stringify(view.progress), report: view.report === null ? null : JSON.stringify(view.report), error: view.error };
          // A restore replaced the jobs table with the backup's, its own row with it: written again.
          if (this.finish.run(ended).changes === 0) {
            this.insert.run({ ...ended, kind: view.kind, client_id: view.clientId, label: view.label, target: view.target, pid: process.pid, instance: INSTANCE, seen_at: ended.ended_at, started_at: view.startedAt });
          }
          this.prune.run(KEPT_JOBS);
        });
        return;
      } catch (error) {
        if (attempt >= 30 || this.abandoned) {
          this.events.emit({ kind: 'job-end-not-kept', jobId: view.id, state: view.state, error });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  private startBeating(): void {
    if (this.beating) return;
    this.beating = setInterval(() => {
      try {
        this.writes.now(SYSTEM, () => {
          for (const id of this.running.keys()) this.heartbeat.run(this.clock.now(), id);
        });
      } catch {
        // A missed beat costs nothing: the job is taken for dead only after six.
      }
    }, HEARTBEAT_MS);
    this.beating.unref();
  }

  private stopBeating(): void {
    clearInterval(this.beating);
    this.beating = undefined;
  }

  /** Cancels every job and waits for them to end, undone (a host closing with time to spare). */
  async stopAll(): Promise<void> {
    const all = [...this.running.values()];
    for (const job of all) job.controller.abort();
    await Promise.allSettled(all.map((job) => job.done));
  }

  /**
   * The jobs past the point where they can stop (a restore replacing the data) run to their end:
   * a host waits for them before it closes the database under them.
   */
  async finishUncancellable(): Promise<void> {
    await Promise.allSettled([...this.running.values()].filter((job) => !job.view.progress.cancellable).map((job) => job.done));
  }

  /**
   * The database is closing now: jobs still running are left as they are (stopped, their rows
   * still marked running), to be undone at the next start as interrupted ones.
   */
  abandon(): void {
    this.abandoned = true;
    this.stopBeating();
    for (const job of this.running.values()) job.controller.abort();
  }

  /**
   * A stored row. One marked running that is not running here, though this process wrote it, came
   * back with a restored backup: it will never end, so it is shown as interrupted.
   */
  private asStored(row: JobRow): JobView {
    const view = viewOf(row);
    if (view.state === 'running' && row.instance === INSTANCE) return { ...view, state: 'interrupted', error: 'it was running when the backup this data came from was made' };
    return view;
  }
}
