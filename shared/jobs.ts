import type { RestoreReply } from './backups.js';
import type { ExportReport, ImportReport } from './exports.js';
import type { MapPackage } from './maps.js';
import type { UndoReply } from './wire.js';

/**
 * Long work (docs/imports.md): started by one call that answers at once with the job, followed by
 * its progress, cancelled for real, and its report kept afterwards. A job's kind says what it
 * does and what its report is.
 */
export const JOB_KINDS = ['import', 'check', 'undo-import', 'map-import', 'restore', 'export'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** The jobs that read or write the POIs: a restore waits for them (it would replace data under their feet). */
export const DATA_JOB_KINDS = ['import', 'check', 'undo-import', 'export'] as const satisfies readonly JobKind[];

/** What a job is doing now, for jobs that go through steps (a restore, a map package's import), in words. */
export const JOB_PHASES = {
  reading: 'Reading the file',
  checking: 'Checking the file',
  copying: 'Copying the file',
  saving: 'Backing up the current data first',
  restoring: 'Replacing the data',
} as const;
export type JobPhase = keyof typeof JOB_PHASES;

/**
 * `interrupted`: the app stopped while the job ran (a crash, a kill); what an import had written
 * was undone at the next start.
 */
export const JOB_STATES = ['running', 'done', 'failed', 'cancelled', 'interrupted'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface JobProgress {
  /** Rows read (or, exporting, written) so far. */
  rows: number;
  /** How many rows there are to go through, when known at the start (an export's POIs); null otherwise. */
  totalRows: number | null;
  /** Bytes of the file read so far, of `totalBytes`. */
  bytes: number;
  totalBytes: number | null;
  /** Whether a Cancel was asked for and is being carried out (an import undoing what it wrote). */
  cancelling: boolean;
  /** An undo under way (a cancelled or failed import's, or an undo job's): changes reversed, of how many. */
  undoing: { done: number; of: number } | null;
  /** The step under way, for jobs that go through steps; null for the others (and in jobs kept from before steps). */
  phase: JobPhase | null;
  /** Whether a Cancel can still stop it: a restore's last step, once begun, runs to its end. */
  cancellable: boolean;
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
/** The import of an offline map package (its label the file's name); the package once imported. */
export type MapImportJob = JobBase & { kind: 'map-import'; report: MapPackage | null };
/** A restore from a backup (its label the backup's name); what was restored and the backup taken first. */
export type RestoreJob = JobBase & { kind: 'restore'; report: RestoreReply | null };
/** A client's POIs written to a file (its label the format's name); what it wrote. */
export type ExportJob = JobBase & { kind: 'export'; report: ExportReport | null };
export type JobView = ImportJob | UndoJob | MapImportJob | RestoreJob | ExportJob;

export const isImportJob = (job: JobView): job is ImportJob => job.kind === 'import' || job.kind === 'check';

/** A job as a message names it, from its label: "the import of pois.csv", "the undo of pois.csv" (an undo's label says it). */
const NAMED: Record<JobKind, (label: string) => string> = {
  import: (label) => `the import of ${label}`,
  check: (label) => `the check of ${label}`,
  'undo-import': (label) => label,
  'map-import': (label) => `the import of the map package ${label}`,
  restore: (label) => `the restore of ${label}`,
  export: (label) => `the export to ${label}`,
};
export const describeJob = (job: Pick<JobView, 'kind' | 'label'>): string => NAMED[job.kind](job.label);

/** How many ended jobs are kept with their reports (the oldest go first). */
export const KEPT_JOBS = 200;

/**
 * How many refused rows, duplicates and identical rows a report shows, and how many a list of
 * jobs carries of each (the counts say how many more; `jobs.get` gives the first 1,000): fifty
 * reports of 3,000 entries each would be megabytes for a list.
 */
export const REPORT_ENTRIES_SHOWN = 20;
