import { stringify } from 'csv-stringify/browser/esm/sync';
import { useId, useState } from 'react';
import { CSV_WRITING, guardCell } from '../../../shared/csv-cells';
import type { ImportReport } from '../../../shared/exports';
import { exportFileName, FILE_FORMATS, IMPORT_REPORT_FORMAT } from '../../../shared/file-formats';
import { reportCsvRows } from '../../../shared/import-words';
import { isImportJob } from '../../../shared/jobs';
import { useJob } from '../jobs/queries';

/** Refused rows shown at a time: a page of the table, with Previous and Next. */
const PAGE = 50;

/** The report as a spreadsheet's CSV (as exports write one: a BOM, CRLF, every cell through the formula guard), saved by the browser. */
function downloadCsv(report: ImportReport, label: string): void {
  const text = `\uFEFF${stringify(reportCsvRows(report).map((row) => row.map(guardCell)), CSV_WRITING)}`;
  const url = URL.createObjectURL(new Blob([text], { type: FILE_FORMATS[IMPORT_REPORT_FORMAT].mime }));
  const link = document.createElement('a');
  link.href = url;
  link.download = exportFileName(IMPORT_REPORT_FORMAT, `${label.replace(/\.[^.]*$/, '')} refused rows`);
  document.body.append(link);
  link.click();
  link.remove();
  // After the click has been handled: revoking at once can cancel the download.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/**
 * Every refused row of an import (the whole report, asked for once opened: a list of jobs
 * carries the first few), a page at a time, with its line, name and reason, and the same as a
 * CSV to download.
 */
export function ImportFullReport({ report, label }: { report: ImportReport; label: string }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [page, setPage] = useState(0);
  // The job's id is the import's (main/core/imports/import-job.ts).
  const job = useJob(open ? report.importId : undefined);
  const full = job.data && isImportJob(job.data) && job.data.report ? job.data.report : undefined;
  const rows = reportCsvRows(full ?? report).slice(1);
  const pages = Math.max(1, Math.ceil(rows.length / PAGE));
  const shown = rows.slice(page * PAGE, (page + 1) * PAGE);
  const unlisted = (full ?? report).refusedCount - rows.length;
  return (
    <details className="import-full-report" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        {/* A check refused nothing yet: it says what the import would refuse. */}
        Full report: every {report.dryRun ? 'row that would be refused' : 'refused row'}
        {report.refusedCount === 1 ? '' : ` (${report.refusedCount})`}
      </summary>
      {job.isPending && open && <p>Loading the report…</p>}
      {job.error && <p className="error">The report cannot be read: {job.error.message}</p>}
      {full && (
        <>
          <button type="button" onClick={() => downloadCsv(full, label)}>
            Download the report (CSV)
          </button>
          <div className="table-scroll">
            <table aria-describedby={id}>
              <caption>
                {report.dryRun ? 'Rows that would be refused' : 'Refused rows'} {page * PAGE + 1}–{page * PAGE + shown.length} of {rows.length}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Row</th>
                  <th scope="col">Name</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {shown.map(([where, name, reason], i) => (
                  <tr key={page * PAGE + i}>
                    <td>{where}</td>
                    <td>{name}</td>
                    <td>{reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p id={id} className="hint">
            {unlisted > 0 ? `The report keeps the first ${rows.length.toLocaleString('en')} refused rows; ${unlisted.toLocaleString('en')} more were refused, counted by cause above. Fix these and check the file again to see the rest.` : `Page ${page + 1} of ${pages}.`}
          </p>
          {pages > 1 && (
            <div className="actions">
              {/* aria-disabled, not disabled: the last page's Next keeps the focus it has. */}
              <button type="button" aria-disabled={page === 0} onClick={() => setPage(Math.max(0, page - 1))}>
                Previous rows
              </button>
              <button type="button" aria-disabled={page >= pages - 1} onClick={() => setPage(Math.min(pages - 1, page + 1))}>
                Next rows
              </button>
            </div>
          )}
        </>
      )}
    </details>
  );
}
