import { useId, useRef, useState } from 'react';
import type { ExportFormat } from '../../../shared/exports';
import { inBrowserMode } from '../transport';
import { FileInput } from '../ui/FileInput';
import { formatOf, previewOf, type Preview } from './importPreview';
import { ImportReportView } from './ImportReportView';
import { useImportDialog, useImportPois } from './mutations';


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
  if (!inBrowserMode) return <DesktopImport clientId={clientId} />;

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
      {report && <ImportReportView clientId={clientId} report={report} />}
    </section>
  );
}

/** The desktop app: the system's open dialog picks the file, the main process imports it, the report shows here. */
function DesktopImport({ clientId }: { clientId: string }) {
  const id = useId();
  const [createCategories, setCreateCategories] = useState(false);
  const pick = useImportDialog();
  return (
    <section className="import-pois" aria-labelledby={id}>
      <h3 id={id}>Import POIs</h3>
      <label>
        <input type="checkbox" checked={createCategories} onChange={(e) => setCreateCategories(e.target.checked)} />
        Create the categories the file names that this client does not have
      </label>
      <div className="actions">
        <button type="button" disabled={pick.isPending} onClick={() => pick.mutate({ clientId, dryRun: true, createCategories })}>
          Check a file…
        </button>
        <button type="button" disabled={pick.isPending} onClick={() => pick.mutate({ clientId, dryRun: false, createCategories })}>
          {pick.isPending ? 'Importing…' : 'Import a file…'}
        </button>
      </div>
      {pick.errors.form && <p role="alert" className="error">{pick.errors.form}</p>}
      {pick.data && <ImportReportView clientId={clientId} report={pick.data} />}
    </section>
  );
}
