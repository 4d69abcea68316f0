import type { ImportReport } from './exports.js';

/**
 * Long work (docs/imports.md): started by one call that answers at once with the job, followed by
 * its progress, cancelled for real, and its report kept afterwards. A job's kind says what it
 * does and what its report is.
 */
export const JOB_KINDS = ['import', 'check'] as const;
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
  /** A cancelled or failed import undoing what it wrote: changes reversed, of how many. */
  undoing: { done: number; of: number } | null;
}

export interface JobView {
  id: string;
  kind: JobKind;
  clientId: string | null;
  /** What the job works on, as a person named it: the file's name. */
  label: string;
  state: JobState;
  progress: JobProgress;
  startedAt: number;
  endedAt: number | null;
  /** The import's report; null while it runs, or when the job ended before making one. */
  report: ImportReport | null;
  /** Why it failed or was interrupted, in plain words. */
  error: string | null;
}

/** How many ended jobs are kept with their reports (the oldest go first). */
export const KEPT_JOBS = 200;

/**
 * How many refused rows, duplicates and identical rows a report shows, and how many a list of
 * jobs carries of each (the counts say how many more; `jobs.get` gives the first 1,000): fifty
 * reports of 3,000 entries each would be megabytes for a list.
 */
export const REPORT_ENTRIES_SHOWN = 20;
