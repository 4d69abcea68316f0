import { useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import type { ExportFormat, ImportReport } from '../../../shared/exports';
import { categoryKeys } from '../categories/queries';
import { useOperation } from '../operation';
import { ConsoleError, uploadImport } from '../transport';
import { POI_FORM_FIELDS } from './fields';
import { reportKeys } from '../reports/queries';
import { poiKeys } from './queries';

/** What a POI change makes stale: every view of the client's POIs (map, details, search, warnings). */
const changed = (i: { clientId: string }) => [poiKeys.all(i.clientId)];

export const useAddPoi = () => useOperation('pois.add', changed, POI_FORM_FIELDS);

export const useUpdatePoi = () => useOperation('pois.update', changed, POI_FORM_FIELDS);

/** A delete also closes the POI's reports. */
export const useDeletePoi = () => useOperation('pois.delete', (i) => [...changed(i), reportKeys.open(i.clientId)]);

/** A POI dragged on the map to a new place, and confirmed. */
export interface Move {
  poi: number;
  name: string;
  lat: number;
  lng: number;
}

/**
 * Moves a POI dragged on the map (an update of its position). When the move is refused (the POI
 * was deleted meanwhile, another program holds the database...) `putBack` returns the marker to
 * where the POI is stored, and `refusal` says why until it is dismissed or the next move starts.
 */
export function useMovePoi(clientId: string) {
  const update = useUpdatePoi();
  const [refusal, setRefusal] = useState<string | undefined>();
  const move = (to: Move, putBack: () => void): void => {
    setRefusal(undefined);
    // The promise, not mutate's callbacks: those are dropped when another move starts meanwhile.
    update.mutateAsync({ clientId, fields: { poi: to.poi, lat: to.lat, lng: to.lng } }).catch((error: unknown) => {
      putBack();
      setRefusal(`${to.name ? `“${to.name}”` : 'The POI'} was not moved: ${error instanceof Error ? error.message : String(error)}`);
    });
  };
  return { move, refusal, dismiss: () => setRefusal(undefined) };
}

/** Desktop app: the export written to a file chosen in the system's save dialog. */
export const useExportDialog = () => useOperation('pois.exportDialog', () => []);

/** Desktop app: an import through the system's open dialog changes the client's POIs and categories. */
export const useImportDialog = () => useOperation('pois.importDialog', (i) => [poiKeys.all(i.clientId), categoryKeys.list(i.clientId)]);

/**
 * Browser mode: a CSV or GeoJSON file imported into the client, with the upload's progress and a
 * cancel; the answer is the import's report (rows refused with where and why).
 */
export function useImportPois(clientId: string) {
  const queryClient = useQueryClient();
  const [progress, setProgress] = useState<number | undefined>();
  const [report, setReport] = useState<ImportReport | undefined>();
  const [error, setError] = useState<string | undefined>();
  const controller = useRef<AbortController | undefined>(undefined);
  const start = async (file: File, format: ExportFormat, options: { dryRun: boolean; createCategories: boolean }): Promise<void> => {
    const abort = new AbortController();
    controller.current = abort;
    setError(undefined);
    setReport(undefined);
    setProgress(0);
    try {
      const answer = await uploadImport(file, { clientId, format, ...options }, setProgress, abort.signal);
      if (answer.ok) setReport(answer.value);
      else setError(new ConsoleError(answer.error).message);
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(e instanceof Error ? e.message : String(e));
    } finally {
      setProgress(undefined);
      controller.current = undefined;
      await queryClient.invalidateQueries({ queryKey: poiKeys.all(clientId) });
      await queryClient.invalidateQueries({ queryKey: categoryKeys.list(clientId) });
    }
  };
  const reset = (): void => {
    setReport(undefined);
    setError(undefined);
  };
  return { start, cancel: () => controller.current?.abort(), progress, report, error, reset };
}
