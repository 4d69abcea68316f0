import { useState } from 'react';
import { CSV_FLAVOUR_LABELS, CSV_FLAVOURS, EXPORT_FORMATS, FILE_FORMATS, FLAVOURED_FORMATS, formatNames, type CsvFlavour, type ExportFormat } from '../../../shared/file-formats';
import { downloadExport, inBrowserMode } from '../transport';
import { FormError } from '../ui/Field';
import { useExportDialog } from './mutations';

/**
 * Every POI of the client as a file: a download in a browser, the save dialog in the desktop app.
 * A CSV is written for a spreadsheet unless the person chooses a program.
 */
export function ExportPois({ clientId }: { clientId: string }) {
  const dialog = useExportDialog();
  const [error, setError] = useState<string | undefined>();
  const [csvFlavour, setCsvFlavour] = useState<CsvFlavour>('spreadsheet');
  const start = (format: ExportFormat): void => {
    setError(undefined);
    if (!inBrowserMode) dialog.mutate({ clientId, format, csvFlavour });
    else downloadExport(clientId, format, csvFlavour).catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };
  return (
    <div className="export-pois" role="group" aria-label="Export POIs">
      <span>Export all POIs:</span>
      {EXPORT_FORMATS.map((format) => (
        <button key={format} type="button" onClick={() => start(format)} disabled={dialog.isPending}>
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
      <FormError error={error ?? dialog.errors.form} />
      {dialog.data && <p role="status">Exported to {dialog.data.file}</p>}
    </div>
  );
}
