import type { JobKind, JobView } from '../../../shared/jobs.js';
import { recoverImport, recoverUndo } from '../imports/import-job.js';
import type { Services } from '../services.js';
import { LOST, type JobLost } from './jobs.js';

/**
 * What is done about a job found marked running that is not (jobs.ts recoverInterrupted), by
 * kind, and what the job then says. An import's writes are undone and an undo finished either
 * way (they are in the data). A map package, an export's file and a restore are not in the
 * data: nothing to set right, and what to say depends on why the row is there.
 */
const RECOVER: Record<JobKind, (s: Services, job: JobView, cause: JobLost) => string> = {
  import: recoverImport,
  check: recoverImport,
  'undo-import': recoverUndo,
  'map-import': (_s, job, cause) =>
    cause === 'stopped'
      ? `${LOST.stopped('import')}: nothing of the package was kept. Import it again.`
      : `${LOST.restored('import')}. Map packages are kept beside the data, not in it: see Map layers for whether ${job.label} is there.`,
  // Its file was never finished (stopped), or is not in the data (restored).
  export: (_s, _job, cause) => (cause === 'stopped' ? `${LOST.stopped('export')}: its file was not finished. Export again.` : `${LOST.restored('export')}; export again if you need its file.`),
  // A restore's copy replaces the jobs table too: its own row survives only in data it did not replace.
  restore: (_s, _job, cause) =>
    cause === 'stopped'
      ? `${LOST.stopped('restore')}, before it replaced the data: nothing was changed. Restore again if you still want the backup’s data.`
      : 'This data comes from the backup taken just before this restore replaced the data.',
};

export const recoverJob = (s: Services, job: JobView, cause: JobLost): string => RECOVER[job.kind](s, job, cause);
