import { useId, useRef, useState } from 'react';
import { extensionNames, formatNames, IMPORT_FORMATS, type ImportFormat } from '../../../shared/file-formats';
import { inBrowserMode } from '../transport';
import { FileInput } from '../ui/FileInput';
import { useCategories } from '../categories/queries';
import { formatOf, IMPORT_ACCEPT, previewOf, type Preview } from './importPreview';
import { ImportJobView } from './ImportJobView';
import { EarlierImports } from './EarlierImports';
import { useImportPois } from './mutations';

/**
 * Import POIs from a CSV or GeoJSON file: a preview of the first rows and how each column maps
 * (browser mode, where the page reads the file; the desktop's open dialog picks it in the main
 * process), then a check (nothing written) or the import, as a job with its progress and a
 * Cancel that undoes what was written, and the report: how many went in, and each refused row
 * with its line and why. Earlier imports stay listed with their reports.
 */
export function ImportPois({ clientId }: { clientId: string }) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<{ file: File; format: ImportFormat; preview: Preview } | undefined>();
  const [problem, setProblem] = useState<string | undefined>();
  const [createCategories, setCreateCategories] = useState(false);
  const [addIdentical, setAddIdentical] = useState(false);
  /** The category (by name) of the rows that name none; '' for none. */
  const [defaultCategory, setDefaultCategory] = useState('');
  const categories = useCategories(clientId);
  const importer = useImportPois(clientId);

  const pick = async (chosen: File): Promise<void> => {
    importer.reset();
    setProblem(undefined);
    const format = formatOf(chosen);
    if (!format) {
      setFile(undefined);
      setProblem(`${chosen.name}: not a ${extensionNames(IMPORT_FORMATS)} file`);
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
    const choices = { dryRun, createCategories, addIdentical, ...(defaultCategory === '' ? {} : { defaultCategory }) };
    if (!inBrowserMode) void importer.pick(choices);
    else if (file) void importer.start(file.file, file.format, choices);
  };
  const categoriesOption = (
    <>
      <label className="choice">
        <input type="checkbox" checked={createCategories} onChange={(e) => setCreateCategories(e.target.checked)} aria-describedby={`${id}-create-hint`} />
        Create missing categories
        <span id={`${id}-create-hint`} className="hint">
          the categories the file names that this client does not have
        </span>
      </label>
      <div className="field">
        <label htmlFor={`${id}-default-category`}>Category for rows that name none (optional)</label>
        <select id={`${id}-default-category`} value={defaultCategory} onChange={(e) => setDefaultCategory(e.target.value)} aria-describedby={`${id}-default-hint`}>
          <option value="">None: refuse rows without a category</option>
          {(categories.data ?? []).map((c) => (
            <option key={c.Id} value={c.Description}>
              {c.Description}
            </option>
          ))}
        </select>
        <div id={`${id}-default-hint`} className="hint">
          Rows that name a category keep theirs.
        </div>
      </div>
      <label className="choice">
        <input type="checkbox" checked={addIdentical} onChange={(e) => setAddIdentical(e.target.checked)} />
        Add rows identical to a POI already there (skipped otherwise, so importing a file twice adds nothing)
      </label>
    </>
  );
  const actions = (
    <div className="actions">
      <button type="button" onClick={() => run(true)} disabled={importer.running}>
        {inBrowserMode ? 'Check only' : 'Check a file…'}
      </button>
      <button type="button" onClick={() => run(false)} disabled={importer.running}>
        {inBrowserMode ? 'Import' : 'Import a file…'}
      </button>
    </div>
  );

  return (
    <section className="import-pois" aria-labelledby={id}>
      <h3 id={id}>Import POIs</h3>
      {inBrowserMode ? (
        <>
          <button type="button" onClick={() => input.current?.click()} disabled={importer.running}>
            Choose a {formatNames(IMPORT_FORMATS)} file…
          </button>
          <FileInput ref={input} accept={IMPORT_ACCEPT} label={`${formatNames(IMPORT_FORMATS)} file of POIs`} onFile={(chosen) => void pick(chosen)} />
        </>
      ) : (
        <>
          {categoriesOption}
          {actions}
        </>
      )}
      {problem && <p role="alert" className="error">{problem}</p>}
      {inBrowserMode && file && (
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
          {categoriesOption}
          {actions}
        </div>
      )}
      {importer.sent !== undefined && (
        <div className="import-progress">
          <label>
            Sending {file?.file.name}
            <progress max={1} value={importer.sent} />
          </label>
          <button type="button" onClick={importer.cancel}>
            Cancel
          </button>
        </div>
      )}
      {importer.job && <ImportJobView clientId={clientId} job={importer.job} onCancel={importer.cancel} announce />}
      {importer.error && <p role="alert" className="error">{importer.error}</p>}
      <EarlierImports clientId={clientId} current={importer.job?.id} />
    </section>
  );
}
