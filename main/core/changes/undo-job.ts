import { describeJob, type JobView } from '../../../shared/jobs.js';
import { ServiceError } from '../errors.js';
import type { JobOutcome } from '../jobs/jobs.js';
import type { Services } from '../services.js';

/**
 * The undo of a whole import as a job (docs/imports.md): answers at once; its progress is the
 * changes reversed; it runs to its end (a Cancel half-way would leave the import half undone), or
 * stops where a change since refuses it, saying how far it got (undoing again finishes it).
 */
export function startUndoImport(s: Services, clientId: string, importId: string): JobView {
  s.undo.requireImport(clientId, importId);
  if (s.backups.restoring) throw new ServiceError('STORAGE_BUSY', 'a backup is being restored: undo the import once it is done');
  const running = s.jobs.runningFor({ clientId });
  if (running) throw new ServiceError('CONFLICT', `${describeJob(running)} is running in this client: wait for it to end, or cancel it`, 'import');
  const imported = s.jobs.find(importId);
  const label = `the undo of ${imported && imported.kind !== 'undo-import' ? imported.label : `import ${importId}`}`;
  return s.jobs.start({ kind: 'undo-import', clientId, label, target: importId, totalBytes: null }, async (job): Promise<JobOutcome> => {
    try {
      const reply = await s.undo.importRun(clientId, importId, (done, of) => job.progress({ rows: done, undoing: { done, of } }));
      return { state: 'done', report: reply, error: null };
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      return { state: 'failed', report: null, error: error.message };
    }
  });
}
