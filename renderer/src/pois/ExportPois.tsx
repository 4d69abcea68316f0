import { useState } from 'react';
import { EXPORT_FORMATS, type ExportFormat } from '../../../shared/exports';
import { downloadExport, inBrowserMode } from '../transport';
import { FormError } from '../ui/Field';
import { useExportDialog } from './mutations';

const LABELS: Record<ExportFormat, string> = { geojson: 'GeoJSON', csv: 'CSV' };

/** Every POI of the client as a file: a download in a browser, the save dialog in the desktop app. */
export function ExportPois({ clientId }: { clientId: string }) {
  const dialog = useExportDialog();
  const [error, setError] = useState<string | undefined>();
  const start = (format: ExportFormat): void => {
    setError(undefined);
    if (!inBrowserMode) dialog.mutate({ clientId, format });
    else downloadExport(clientId, format).catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)));
  };
  return (
    <div className="export-pois" role="group" aria-label="Export POIs">
      <span>Export all POIs:</span>
      {EXPORT_FORMATS.map((format) => (
        <button key={format} type="button" onClick={() => start(format)} disabled={dialog.isPending}>
          {LABELS[format]}
        </button>
      ))}
      <FormError error={error ?? dialog.errors.form} />
      {dialog.data && <p role="status">Exported to {dialog.data.file}</p>}
    </div>
  );
}
