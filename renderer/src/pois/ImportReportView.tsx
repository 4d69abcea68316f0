import type { ImportReport } from '../../../shared/exports';
import { UndoImport } from '../activity/UndoImport';

/** The first refusals (and possible duplicates) shown; the count says how many more. */
const SHOWN = 20;

/** An import's report: how many went in, each refused row with where and why, the rows that look like POIs already there, and undo. */
export function ImportReportView({ clientId, report }: { clientId: string; report: ImportReport }) {
  return (
    <>
      <div className="import-report" role="status">
        <p>
          {report.dryRun ? 'Checked, nothing written: ' : ''}
          {report.added} added, {report.updated} updated, {report.refusedCount} refused, of {report.rows} rows
          {report.identicalCount > 0 && `, ${report.identicalCount} skipped as identical to a POI already there`}
          {report.createdCategories.length > 0 && `; categories ${report.dryRun ? 'to create' : 'created'}: ${report.createdCategories.join(', ')}`}.
        </p>
        {report.refused.length > 0 && (
          <ul aria-label="Refused rows">
            {report.refused.slice(0, SHOWN).map((r, i) => (
              <li key={i}>
                {r.where}: {r.reason}
              </li>
            ))}
            {report.refused.length > SHOWN && <li>and {report.refused.length - SHOWN} more</li>}
          </ul>
        )}
      </div>
      {report.identicalCount > 0 && (
        <details className="import-identical">
          <summary>
            {report.identicalCount} {report.identicalCount === 1 ? 'row' : 'rows'} skipped: identical to a POI already there
          </summary>
          <ul aria-label="Rows skipped as identical">
            {report.identical.slice(0, SHOWN).map((d, i) => (
              <li key={i}>
                {d.where}: “{d.name}”, {d.of.id === null ? `as ${d.of.where} of this file` : `as POI ${d.of.id}`}
              </li>
            ))}
            {report.identicalCount > SHOWN && <li>and {report.identicalCount - SHOWN} more</li>}
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
            {report.possibleDuplicates.slice(0, SHOWN).map((d, i) => (
              <li key={i}>
                {d.where}: “{d.name}”, possible duplicate of “{d.of.name}” ({d.of.distance_m} m away, {d.of.id === null ? `${d.of.where} of this file` : `POI ${d.of.id}`})
              </li>
            ))}
            {report.duplicateCount > SHOWN && <li>and {report.duplicateCount - SHOWN} more</li>}
          </ul>
        </div>
      )}
      {!report.dryRun && report.added + report.updated > 0 && <UndoImport clientId={clientId} importId={report.importId} />}
    </>
  );
}
