import { useOutcomeFocus } from '../jobs/useOutcomeFocus';
import type { ImportJob } from '../../../shared/jobs';
import { ImportReportView } from './ImportReportView';

const count = (n: number): string => n.toLocaleString('en');

/** How a job ended, in plain words: what happened, and whether anything was changed. */
function outcomeOf(job: ImportJob): string | undefined {
  const report = job.report;
  const wrote = report !== null && !report.dryRun && report.added + report.updated + report.createdCategories.length > 0;
  const unchanged = !wrote || report.undone;
  if (job.state === 'cancelled') {
    // A cancel whose undo was refused (a POI edited meanwhile) leaves rows: say so, and why.
    return unchanged ? `Cancelled after ${count(report?.rows ?? 0)} rows: nothing was changed.` : `Cancelled after ${count(report?.rows ?? 0)} rows. ${report?.failed ?? ''}`.trim();
  }
  if (job.state === 'failed' || job.state === 'interrupted') return `${job.error ?? 'The import stopped.'}${job.state === 'failed' && job.kind === 'import' && unchanged ? ' Nothing was changed.' : ''}`;
  return undefined;
}

/**
 * An import job as it runs (rows read, the share of the file, Cancel) and once it has ended: how
 * it ended in plain words, then its report. With `announce`, the outcome is said in a live region
 * that stays on the page (a region added already filled is often not read out), and focus moves
 * to it when the Cancel button it replaces had focus.
 */
export function ImportJobView({ clientId, job, onCancel, announce = false }: { clientId: string; job: ImportJob; onCancel?: () => void; announce?: boolean }) {
  const verb = job.kind === 'check' ? 'Checking' : 'Importing';
  const running = job.state === 'running';
  const { outcomeRef, cancelRef } = useOutcomeFocus(running);
  const outcome = running ? undefined : outcomeOf(job);
  const failed = job.state === 'failed' || job.state === 'interrupted' || (job.state === 'cancelled' && outcome !== undefined && !outcome.endsWith('nothing was changed.'));
  const { rows, bytes, totalBytes, cancelling, undoing } = job.progress;
  return (
    <>
      {running && (
        <div className="import-progress">
          <label>
            {undoing ? `Undoing what was written from ${job.label}: ${count(undoing.done)} of ${count(undoing.of)} changes` : cancelling ? `Cancelling the import of ${job.label}…` : `${verb} ${job.label}: ${count(rows)} rows read`}
            {undoing ? <progress max={undoing.of} value={undoing.done} /> : <progress max={totalBytes ?? 1} value={totalBytes ? bytes : undefined} />}
          </label>
          {onCancel && (
            // aria-disabled, not disabled: a disabled button drops the focus it holds.
            <button
              type="button"
              ref={cancelRef}
              aria-disabled={cancelling}
              onClick={() => {
                if (!cancelling) onCancel();
              }}
            >
              Cancel
            </button>
          )}
        </div>
      )}
      {/* On the page (empty) from the job's start: a live region added already filled is often not read out. */}
      <p ref={outcomeRef} tabIndex={-1} role={announce ? (failed ? 'alert' : 'status') : undefined} className={failed ? 'error job-outcome' : 'job-outcome'}>
        {outcome ?? ''}
      </p>
      {!running && job.report && (job.state === 'done' || job.report.refused.length > 0 || (!job.report.undone && !job.report.dryRun)) && <ImportReportView clientId={clientId} report={job.report} label={job.label} />}
    </>
  );
}
