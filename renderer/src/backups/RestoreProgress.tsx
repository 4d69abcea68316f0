import { useOutcomeFocus } from '../jobs/useOutcomeFocus';
import { JOB_PHASES, type RestoreJob } from '../../../shared/jobs';
import { readableDate } from '../ui/format';

/** The time in a backup's name, to name it as the list does. */
const backupTime = (name: string): string => {
  const m = /(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/.exec(name);
  return m ? readableDate(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) : name;
};

/** How a restore ended, in plain words. */
function outcomeOf(job: RestoreJob): string {
  if (job.state === 'done') return `Restored the backup of ${backupTime(job.label)}. The data it replaced is kept as a backup too.`;
  if (job.state === 'cancelled') return 'Restore cancelled: nothing was changed.';
  return job.error ?? 'The restore stopped: nothing was changed.';
}

/**
 * A restore as it runs (its step, the share of the file read, Cancel until the last step) and
 * how it ended, said in a live region that is on the page from the start; focus moves to it when
 * the Cancel it replaces had focus.
 */
export function RestoreProgress({ job, onCancel }: { job: RestoreJob | undefined; onCancel: () => void }) {
  const running = job?.state === 'running';
  const { outcomeRef, cancelRef } = useOutcomeFocus(running);
  const failed = job?.state === 'failed' || job?.state === 'interrupted';
  const p = job?.progress;
  const stoppable = p !== undefined && p.cancellable && !p.cancelling;
  return (
    <>
      {job && p && running && (
        <div className="import-progress">
          <label>
            {`Restoring the backup of ${backupTime(job.label)}: ${p.cancelling ? 'cancelling…' : p.phase ? JOB_PHASES[p.phase] : 'starting'}`}
            {p.phase === 'reading' && p.totalBytes ? <progress max={p.totalBytes} value={p.bytes} /> : <progress max={1} />}
          </label>
          {/* aria-disabled, not disabled: a disabled button drops the focus it holds. */}
          <button
            type="button"
            ref={cancelRef}
            aria-disabled={!stoppable}
            title={p.cancellable ? undefined : 'The data is being replaced: this last step runs to its end'}
            onClick={() => {
              if (stoppable) onCancel();
            }}
          >
            Cancel
          </button>
        </div>
      )}
      <p ref={outcomeRef} tabIndex={-1} role={failed ? 'alert' : 'status'} className={failed ? 'error job-outcome' : 'job-outcome'}>
        {job && !running ? outcomeOf(job) : ''}
      </p>
    </>
  );
}
