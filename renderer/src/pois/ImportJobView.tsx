import type { JobView } from '../../../shared/jobs';
import { ImportReportView } from './ImportReportView';

const count = (n: number): string => n.toLocaleString('en');

/**
 * An import job as it runs (rows read, the share of the file, Cancel) and once it has ended: how
 * it ended in plain words, then its report. A cancelled or failed import says that nothing was
 * changed when what it wrote was undone.
 */
export function ImportJobView({ clientId, job, onCancel }: { clientId: string; job: JobView; onCancel?: () => void }) {
  const verb = job.kind === 'check' ? 'Checking' : 'Importing';
  if (job.state === 'running') {
    const { rows, bytes, totalBytes, cancelling, undoing } = job.progress;
    return (
      <div className="import-progress">
        <label>
          {undoing ? `Undoing what was written from ${job.label}: ${count(undoing.done)} of ${count(undoing.of)} changes` : cancelling ? `Cancelling the import of ${job.label}…` : `${verb} ${job.label}: ${count(rows)} rows read`}
          {undoing ? <progress max={undoing.of} value={undoing.done} /> : <progress max={totalBytes ?? 1} value={totalBytes ? bytes : undefined} />}
        </label>
        {onCancel && (
          <button type="button" onClick={onCancel} disabled={cancelling}>
            Cancel
          </button>
        )}
      </div>
    );
  }
  const unchanged = job.report === null || job.report.dryRun || job.report.undone || job.report.added + job.report.updated === 0;
  const outcome =
    job.state === 'cancelled'
      ? `Cancelled after ${count(job.report?.rows ?? 0)} rows${unchanged ? ': nothing was changed.' : '.'}`
      : job.state === 'failed' || job.state === 'interrupted'
        ? `${job.error ?? 'The import stopped.'}${unchanged && job.kind === 'import' && job.state === 'failed' ? ' Nothing was changed.' : ''}`
        : undefined;
  return (
    <>
      {outcome && (
        <p role={job.state === 'cancelled' ? 'status' : 'alert'} className={job.state === 'cancelled' ? undefined : 'error'}>
          {outcome}
        </p>
      )}
      {job.report && (job.state === 'done' || job.report.refused.length > 0) && <ImportReportView clientId={clientId} report={job.report} />}
    </>
  );
}
