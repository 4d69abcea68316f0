import { useId, useRef, useState } from 'react';
import { UndoImport } from '../activity/UndoImport';
import type { ExportFormat } from '../../../shared/exports';
import { inBrowserMode } from '../transport';
import { FileInput } from '../ui/FileInput';
import { formatOf, previewOf, type Preview } from './importPreview';
import { useImportPois } from './mutations';

/** The first refusals shown; the count says how many more. */
const SHOWN = 20;

/**
 * Import POIs from a CSV or GeoJSON file: a preview of the first rows and how each column maps,
 * then a check (nothing written) or the import, with progress and cancel, and the report: how
 * many went in, and each refused row with its line and why.
 */
export function ImportPois({ clientId }: { clientId: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<{ file: File; format: ExportFormat; preview: Preview } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [createCategories, setCreateCategories] = useState(false);
  const importer = useImportPois(clientId);
  if (!inBrowserMode) return <p className="hint">Import POIs from the command line: npm run cli -- pois import FILE --client ID.</p>;

  const pick = async (chosen: File): Promise<void> => {
    importer.reset();
    setProblem(undefined);
    const format = formatOf(chosen);
    if (!format) {
      setFile(undefined);
      setProblem(`${chosen.name}: not a .csv, .geojson or .json file`);
      return;
    }
    try {
      setFile({ file: chosen, format, preview: await previewOf(chosen, format) });
    } catch (e) {
      setFile(undefined);
      setProblem(`${chosen.name} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  const run = (dryRun: boolean): void => {
    if (file) void importer.start(file.file, file.format, { dryRun, createCategories });
  };
  const { report } = importer;

  return (
    <section className="import-pois" aria-labelledby={id}>
      <h3 id={id}>Import POIs</h3>
      <button type="button" onClick={() => input.current?.click()} disabled={importer.progress !== undefined}>
        Choose a CSV or GeoJSON file…
      </button>
      <FileInput ref={input} accept=".csv,.geojson,.json" label="CSV or GeoJSON file of POIs" onFile={(chosen) => void pick(chosen)} />
      {problem && <p role="alert" className="error">{problem}</p>}
      {file && (
        <div className="import-preview">
          <p>
            {file.file.name}: {file.preview.columns.filter((c) => c.target).length} columns used
            {file.preview.columns.some((c) => !c.target) && `, ignored: ${file.preview.columns.filter((c) => !c.target).map((c) => c.name).join(', ')}`}
          </p>
          {file.preview.rows.length > 0 && (
            <div className="table-scroll">
              <table>
                <caption>First rows, and the field each column feeds</caption>
                <thead>
                  <tr>
                    {file.preview.columns.map((c, i) => (
                      <th key={i} scope="col">
                        {c.name}
                        <span className="muted"> → {c.target ?? 'ignored'}</span>
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {file.preview.rows.map((row, r) => (
                    <tr key={r}>
                      {file.preview.columns.map((_c, i) => (
                        <td key={i}>{row[i] ?? ''}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <label>
            <input type="checkbox" checked={createCategories} onChange={(e) => setCreateCategories(e.target.checked)} />
            Create the categories the file names that this client does not have
          </label>
          <div className="actions">
            <button type="button" onClick={() => run(true)} disabled={importer.progress !== undefined}>
              Check only
            </button>
            <button type="button" onClick={() => run(false)} disabled={importer.progress !== undefined}>
              Import
            </button>
          </div>
        </div>
      )}
      {importer.progress !== undefined && (
        <div className="import-progress">
          <label>
            Sending {file?.file.name}
            <progress max={1} value={importer.progress} />
          </label>
          <button type="button" onClick={importer.cancel}>
            Cancel
          </button>
        </div>
      )}
      {importer.error && <p role="alert" className="error">{importer.error}</p>}
      {report && (
        <div className="import-report" role="status">
          <p>
            {report.dryRun ? 'Checked, nothing written: ' : ''}
            {report.added} added, {report.updated} updated, {report.refused.length} refused, of {report.rows} rows
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
      )}
      {report && report.duplicateCount > 0 && (
        <div className="import-duplicates">
          <p>
            {report.duplicateCount} {report.duplicateCount === 1 ? 'row looks' : 'rows look'} like a POI already there (within 50 m, a similar name){report.dryRun ? '' : '; added all the same'}:
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
      {report && !report.dryRun && report.added + report.updated > 0 && <UndoImport clientId={clientId} importId={report.importId} />}
    </section>
  );
}
