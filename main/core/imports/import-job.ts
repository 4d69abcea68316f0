import { createReadStream, rmSync, statSync } from 'node:fs';
import { pipeline, Transform } from 'node:stream';
import type { ExportFormat } from '../../../shared/exports.js';
import { describeJob, type JobView } from '../../../shared/jobs.js';
import { ServiceError } from '../errors.js';
import { LOST, type JobLost, type JobOutcome } from '../jobs/jobs.js';
import type { Services } from '../services.js';
import { checkDefaultCategory, importPois, type ImportOptions } from './poi-import.js';

/** A file to import: where it is, and what to call it. */
export interface ImportFile {
  path: string;
  /** The file's name as the person chose it (the job's label). */
  name: string;
  /** An upload's copy, removed once the job has ended. */
  temporary: boolean;
}

export type ImportJobOptions = Pick<ImportOptions, 'dryRun' | 'createCategories' | 'defaultCategory' | 'geocode' | 'addIdentical'>;

/**
 * An import (or its Check only) as a job: answers at once; the file is read as the job runs, its
 * bytes and rows as progress; Cancel stops it and undoes what it wrote (poi-import.ts).
 */
export function startImport(s: Services, clientId: string, file: ImportFile, format: ExportFormat, options: ImportJobOptions): JobView {
  try {
    s.clients.requireId(clientId);
    // One at a time per client: two at once would each skip rows the other wrote, and a cancel of one would take them.
    if (s.backups.restoring) throw new ServiceError('STORAGE_BUSY', 'a backup is being restored: import once it is done');
    // Before the job: a default category that cannot be used is said at once, not as the job's failure.
    checkDefaultCategory(s, clientId, options);
    const running = s.jobs.runningFor({ clientId });
    if (running) throw new ServiceError('CONFLICT', `${describeJob(running)} into this client is running: wait for it to end, or cancel it`, 'clientId');
    const totalBytes = statSync(file.path).size;
    return s.jobs.start({ kind: options.dryRun ? 'check' : 'import', clientId, label: file.name, target: null, totalBytes }, async (job): Promise<JobOutcome> => {
      const read = createReadStream(file.path);
      let bytes = 0;
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, next) {
          bytes += chunk.length;
          job.progress({ bytes });
          next(null, chunk);
        },
      });
      // pipeline, not pipe: a read error (a drive gone) reaches the importer, which stops there.
      pipeline(read, counted, () => undefined);
      try {
        const report = await importPois(s, clientId, counted, format, {
          ...options,
          importId: job.id,
          signal: job.signal,
          onProgress: (rows) => job.progress({ rows }),
          onUndoProgress: (done, of) => job.progress({ undoing: { done, of } }),
        });
        return { state: report.cancelled ? 'cancelled' : report.failed !== null ? 'failed' : 'done', report, error: report.failed };
      } finally {
        read.destroy();
        if (file.temporary) rmSync(file.path, { force: true });
      }
    });
  } catch (error) {
    if (file.temporary) rmSync(file.path, { force: true });
    throw error;
  }
}

/** An undo found half done (the app stopped, or a backup taken meanwhile was restored), finished: half an undo is half an import. */
export function recoverUndo(s: Services, job: JobView, cause: JobLost): string {
  const lost = LOST[cause]('undo');
  if (job.clientId === null || job.target === null) return `${lost}.`;
  try {
    const undone = s.undo.importRunNow(job.clientId, job.target);
    return `${lost}; it was finished since: ${undone.undone} more changes reversed.`;
  } catch (error) {
    return `${lost}, and it could not be finished: ${error instanceof Error ? error.message : String(error)}. Undo the import again.`;
  }
}

/** An import found half done, undone (an import is all or nothing); what to say of it. */
export function recoverImport(s: Services, job: JobView, cause: JobLost): string {
  const stopped = LOST[cause]('import');
  if (job.kind === 'check' || job.clientId === null) return `${stopped}; a check writes nothing.`;
  try {
    const undone = s.undo.importRunNow(job.clientId, job.id);
    return `${stopped}: the ${undone.undone} changes it had made were undone.`;
  } catch (error) {
    if (error instanceof ServiceError && error.code === 'NOT_FOUND') return `${stopped}, before it wrote anything.`;
    return `${stopped}, and what it had written could not be undone: ${error instanceof Error ? error.message : String(error)}`;
  }
}
