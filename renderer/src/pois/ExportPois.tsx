import { useState } from 'react';
import { CSV_FLAVOUR_LABELS, CSV_FLAVOURS, EXPORT_FORMATS, FILE_FORMATS, FLAVOURED_FORMATS, formatNames, type CsvFlavour } from '../../../shared/file-formats';
import type { ExportJob } from '../../../shared/jobs';
import { useOutcomeFocus } from '../jobs/useOutcomeFocus';
import { FormError } from '../ui/Field';
import { useExportPois } from './mutations';

const count = (n: number): string => n.toLocaleString('en');
const pois = (n: number): string => `${count(n)} POI${n === 1 ? '' : 's'}`;

/** How an export ended, in plain words. */
function outcomeOf(job: ExportJob): string {
  if (job.state === 'cancelled') return 'Export cancelled: no file was written.';
  if (job.state !== 'done' || job.report === null) return job.error ?? 'The export stopped: no file was written.';
  const { rows, savedTo, fileName } = job.report;
  return savedTo ? `Exported ${pois(rows)} to ${savedTo}.` : `Exported ${pois(rows)}: your browser saves ${fileName}.`;
}

/**
 * Every POI of the client as a file, by a job with its progress and Cancel: a download in a
 * browser, the save dialog in the desktop app. A CSV is written for a spreadsheet unless the
 * person chooses a program. The outcome is said in a live region on the page from the start;
 * focus moves to it when the Cancel it replaces had focus.
 */
export function ExportPois({ clientId }: { clientId: string }) {
  const exporter = useExportPois(clientId);
  const [csvFlavour, setCsvFlavour] = useState<CsvFlavour>('spreadsheet');
  const { job } = exporter;
  const running = exporter.starting || job?.state === 'running';
  const { outcomeRef, cancelRef } = useOutcomeFocus(job?.state === 'running');
  const failed = job?.state === 'failed' || job?.state === 'interrupted';
  return (
    <div className="export-pois" role="group" aria-label="Export POIs">
      <span>Export all POIs:</span>
      {EXPORT_FORMATS.map((format) => (
        <button key={format} type="button" onClick={() => exporter.start(format, csvFlavour)} disabled={running}>
          {FILE_FORMATS[format].label}
        </button>
      ))}
      {FLAVOURED_FORMATS.length > 0 && (
        <label>
          Write the {formatNames(FLAVOURED_FORMATS)}{' '}
          <select value={csvFlavour} onChange={(e) => setCsvFlavour(CSV_FLAVOURS.find((f) => f === e.target.value) ?? 'spreadsheet')}>
            {CSV_FLAVOURS.map((flavour) => (
              <option key={flavour} value={flavour}>
                {CSV_FLAVOUR_LABELS[flavour]}
              </option>
            ))}
          </select>
        </label>
      )}
      <FormError error={exporter.error} />
      {job?.state === 'running' && (
        <div className="import-progress">
          <label>
            {job.progress.cancelling ? `Cancelling the export to ${job.label}…` : `Exporting to ${job.label}: ${count(job.progress.rows)} of ${count(job.progress.totalRows ?? 0)} POIs`}
            <progress max={job.progress.totalRows || 1} value={job.progress.rows} />
          </label>
          {/* aria-disabled, not disabled: a disabled button drops the focus it holds. */}
          <button
            type="button"
            ref={cancelRef}
            aria-disabled={job.progress.cancelling}
            onClick={() => {
              if (!job.progress.cancelling) exporter.cancel();
            }}
          >
            Cancel
          </button>
        </div>
      )}
      <p ref={outcomeRef} tabIndex={-1} role={failed ? 'alert' : 'status'} className={failed ? 'error job-outcome' : 'job-outcome'}>
        {job && job.state !== 'running' ? outcomeOf(job) : ''}
      </p>
      {job?.state === 'done' && job.report?.savedTo === null && (
        <button type="button" onClick={exporter.downloadAgain}>
          Download {job.report.fileName} again
        </button>
      )}
    </div>
  );
}
