import { statSync } from 'node:fs';
import { basename } from 'node:path';
import { describeJob, type RestoreJob } from '../../../shared/jobs.js';
import { ServiceError } from '../errors.js';
import { cancelledOr, type JobOutcome } from '../jobs/jobs.js';
import type { Services } from '../services.js';

/** Bytes a restore reads: the file, and the WAL of a database copied while its program ran. */
const sizeWithWal = (file: string): number => statSync(file).size + (statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0);

/**
 * A restore as a job (backups.ts): answers at once; its steps (read, check, back up the current
 * data, replace) as progress; Cancel stops it at any step before the last, changing nothing.
 */
export function startRestore(s: Services, source: string): RestoreJob {
  // One at a time, said at once: a second would wait behind the first and then replace its data.
  const running = s.jobs.runningFor({ kinds: ['restore'] });
  if (running) throw new ServiceError('CONFLICT', `${describeJob(running)} is running: wait for it to end`, 'name');
  const totalBytes = sizeWithWal(source);
  return s.jobs.start({ kind: 'restore', clientId: null, label: basename(source), target: null, totalBytes }, async (job): Promise<JobOutcome> => {
    try {
      const report = await s.backups.restore(source, { signal: job.signal, progress: job.progress });
      return { state: 'done', report, error: null };
    } catch (error) {
      return cancelledOr(job, error);
    }
  });
}
