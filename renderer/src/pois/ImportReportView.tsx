import { useId } from 'react';
import type { ImportReport } from '../../../shared/exports';
import { importSummary, MORE_REFUSED } from '../../../shared/import-words';
import { REPORT_ENTRIES_SHOWN } from '../../../shared/jobs';
import { UndoImport } from '../activity/UndoImport';
import { CopyButton } from '../ui/CopyButton';
import { ImportFullReport } from './ImportFullReport';

/** Why rows were refused, each cause once with its count; a cause of one row says which row. */
function refusalCauses(report: ImportReport): string[] {
  const listed = report.refused.filter((r) => r.where !== MORE_REFUSED);
  // A report from before causes were grouped: its rows one by one.
  if (report.refusedGroups === undefined) return listed.slice(0, REPORT_ENTRIES_SHOWN).map((r) => `${r.where}: ${r.reason}`);
  return report.refusedGroups.map((g) => {
    const where = g.count === 1 ? listed.find((r) => r.reason === g.reason)?.where : undefined;
    return where === undefined ? g.reason : `${where}: ${g.reason}`;
  });
}

/** The import's id, to undo it from the command line (`undo import ID`, docs/cli.md). */
function ImportId({ id }: { id: string }) {
  const hint = useId();
  return (
    <p className="import-id">
      Import id: <code>{id}</code> <CopyButton label="Copy the import id" value={id} describedBy={hint} />
      <span id={hint} className="hint">
        {' '}
        To undo it from the command line: <code>undo import {id} --client CLIENT_ID</code>
      </span>
    </p>
  );
}

/**
 * An import's report: what went in (for a check, what would), why rows were refused, each cause
 * once, and every refused row in the full report (and its CSV); the rows that look like POIs
 * already there; the import's id and its undo.
 */
export function ImportReportView({ clientId, report, label }: { clientId: string; report: ImportReport; label: string }) {
  const causes = refusalCauses(report);
  const moreCauses = (report.refusedGroups?.length ?? 0) > causes.length;
  return (
    <>
      <div className="import-report" role="status">
        <p>{importSummary(report)}</p>
        {causes.length > 0 && (
          <ul aria-label="Why rows were refused">
            {causes.map((cause, i) => (
              <li key={i}>{cause}</li>
            ))}
            {moreCauses && <li>Other causes: see the full report</li>}
          </ul>
        )}
      </div>
      {report.refusedCount > 0 && <ImportFullReport report={report} label={label} />}
      {report.identicalCount > 0 && (
        <details className="import-identical">
          <summary>
            {report.identicalCount} {report.identicalCount === 1 ? 'row' : 'rows'} {report.dryRun ? 'would be skipped' : 'skipped'}: identical to a POI already there
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
            {report.dryRun ? '; they would be added all the same' : '; added all the same'}:
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
      {!report.dryRun && report.added + report.updated + report.createdCategories.length > 0 && !report.undone && <ImportId id={report.importId} />}
      {!report.dryRun && report.added + report.updated > 0 && <UndoImport clientId={clientId} importId={report.importId} />}
    </>
  );
}
