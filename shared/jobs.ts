import type { ImportReport } from './exports.js';
import type { UndoReply } from './wire.js';

/**
 * Long work (docs/imports.md): started by one call that answers at once with the job, followed by
 * its progress, cancelled for real, and its report kept afterwards. A job's kind says what it
 * does and what its report is.
 */
export const JOB_KINDS = ['import', 'check', 'undo-import'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * `interrupted`: the app stopped while the job ran (a crash, a kill); what an import had written
 * was undone at the next start.
 */
export const JOB_STATES = ['running', 'done', 'failed', 'cancelled', 'interrupted'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobProgress {
  /** Rows read so far. */
  rows: number;
  /** Bytes of the file read so far, of `totalBytes`. */
  bytes: number;
  totalBytes: number | null;
  /** Whether a Cancel was asked for and is being carried out (an import undoing what it wrote). */
  cancelling: boolean;
  /** An undo under way (a cancelled or failed import's, or an undo job's): changes reversed, of how many. */
  undoing: { done: number; of: number } | null;
}

interface JobBase {
  id: string;
  clientId: string | null;
  /** What the job works on, as a person named it: the file's name. */
  label: string;
  /** What it works on by id: the import an undo reverses; null for an import. */
  target: string | null;
  state: JobState;
  progress: JobProgress;
  startedAt: number;
  endedAt: number | null;
  /** Why it failed or was interrupted, in plain words. */
  error: string | null;
}

/** An import or its Check only; its report once it has ended (null while it runs, or when it ended before making one). */
export type ImportJob = JobBase & { kind: 'import' | 'check'; report: ImportReport | null };
/**
 * The undo of a whole import: not cancelled half-way (it runs to its end, or stops where a change
 * since refuses it, saying so); its reply once it has ended.
 */
export type UndoJob = JobBase & { kind: 'undo-import'; report: UndoReply | null };
export type JobView = ImportJob | UndoJob;

export const isImportJob = (job: JobView): job is ImportJob => job.kind !== 'undo-import';

/** A job as a message names it: "the import of pois.csv", "the check of pois.csv", "the undo of pois.csv". */
export const describeJob = (job: JobView): string => (isImportJob(job) ? `the ${job.kind} of ${job.label}` : job.label);

/** How many ended jobs are kept with their reports (the oldest go first). */
export const KEPT_JOBS = 200;

/**
 * How many refused rows, duplicates and identical rows a report shows, and how many a list of
 * jobs carries of each (the counts say how many more; `jobs.get` gives the first 1,000): fifty
 * reports of 3,000 entries each would be megabytes for a list.
 */
export const REPORT_ENTRIES_SHOWN = 20;
