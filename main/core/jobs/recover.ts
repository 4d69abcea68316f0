import type { JobKind, JobView } from '../../../shared/jobs.js';
import { recoverImport, recoverUndo } from '../imports/import-job.js';
import type { Services } from '../services.js';

/**
 * What is done, at the next start, about a job the app died in (jobs.ts recoverInterrupted), by
 * kind, and what the job then says. A map package's import and a restore leave nothing to set
 * right: a package is listed only once complete (its leftovers are swept), a restore's copy
 * is one transaction, and an export's unfinished file is swept with its process's spool.
 */
const RECOVER: Record<JobKind, (s: Services, job: JobView) => string> = {
  import: recoverImport,
  check: recoverImport,
  'undo-import': recoverUndo,
  'map-import': () => 'The app stopped while this package was being imported: nothing of it was kept. Import it again.',
  // Its row survives only in data the restore did not replace (a restore's copy replaces the jobs table too).
  export: () => 'The app stopped while this export ran: its file was not finished. Export again.',
  restore: () => 'The app stopped during this restore, before it replaced the data: nothing was changed. Restore again if you still want the backup’s data.',
};

export const recoverJob = (s: Services, job: JobView): string => RECOVER[job.kind](s, job);
