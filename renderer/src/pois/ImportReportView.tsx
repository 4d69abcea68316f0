import type { ImportReport } from '../../../shared/exports';
import { REPORT_ENTRIES_SHOWN } from '../../../shared/jobs';
import { UndoImport } from '../activity/UndoImport';

/** An import's report: how many went in, each refused row with where and why, the rows that look like POIs already there, and undo. */
export function ImportReportView({ clientId, report }: { clientId: string; report: ImportReport }) {
  // The report's own "and N more" entry is left out: the count says it, whatever the list holds.
  const refused = report.refused.filter((r) => r.where !== 'and more').slice(0, REPORT_ENTRIES_SHOWN);
  return (
    <>
      <div className="import-report" role="status">
        <p>
          {report.dryRun ? 'Checked, nothing written: ' : ''}
          {report.added} added, {report.updated} updated, {report.refusedCount} refused, of {report.rows} rows
          {report.identicalCount > 0 && `, ${report.identicalCount} skipped as identical to a POI already there`}
          {report.createdCategories.length > 0 && `; categories ${report.dryRun ? 'to create' : 'created'}: ${report.createdCategories.join(', ')}`}.
        </p>
        {refused.length > 0 && (
          <ul aria-label="Refused rows">
            {refused.map((r, i) => (
              <li key={i}>
                {r.where}: {r.reason}
              </li>
            ))}
            {report.refusedCount > refused.length && <li>and {report.refusedCount - refused.length} more</li>}
          </ul>
        )}
      </div>
      {report.identicalCount > 0 && (
        <details className="import-identical">
          <summary>
            {report.identicalCount} {report.identicalCount === 1 ? 'row' : 'rows'} skipped: identical to a POI already there
          </summary>
          <ul aria-label="Rows skipped as identical">
            {report.identical.slice(0, REPORT_ENTRIES_SHOWN).map((d, i) => (
              <li key={i}>
                {d.where}: “{d.name}”, {d.of.id === null ? `as ${d.of.where} of this file` : `as POI ${d.of.id}`}
              </li>
            ))}
            {report.identicalCount > REPORT_ENTRIES_SHOWN && <li>and {report.identicalCount - REPORT_ENTRIES_SHOWN} more</li>}
          </ul>
        </details>
      )}
      {report.duplicateCount > 0 && (
        <div className="import-duplicates">
          <p>
            {report.duplicateCount} {report.duplicateCount === 1 ? 'row looks' : 'rows look'} like a POI already there (within 50 m, a similar name)
            {report.dryRun ? '' : '; added all the same'}:
          </p>
          <ul aria-label="Possible duplicates">
            {report.possibleDuplicates.slice(0, REPORT_ENTRIES_SHOWN).map((d, i) => (
              <li key={i}>
                {d.where}: “{d.name}”, possible duplicate of “{d.of.name}” ({d.of.distance_m} m away, {d.of.id === null ? `${d.of.where} of this file` : `POI ${d.of.id}`})
              </li>
            ))}
            {report.duplicateCount > REPORT_ENTRIES_SHOWN && <li>and {report.duplicateCount - REPORT_ENTRIES_SHOWN} more</li>}
          </ul>
        </div>
      )}
      {!report.dryRun && report.added + report.updated > 0 && <UndoImport clientId={clientId} importId={report.importId} />}
    </>
  );
}
