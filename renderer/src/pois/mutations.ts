import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, useSyncExternalStore } from 'react';
import type { Answer } from '../../../shared/contract';
import type { CsvFlavour, ExportFormat, ImportFormat } from '../../../shared/file-formats';
import { isImportJob, type ExportJob, type JobView } from '../../../shared/jobs';
import { useCancelJob } from '../jobs/mutations';
import { jobKeys, seedJob, useClientJobs, useJob } from '../jobs/queries';
import { categoryKeys } from '../categories/queries';
import { useOperation } from '../operation';
import { ConsoleError, inBrowserMode, uploadImport } from '../transport';
import { download, downloadFailure, followExport, shownExport, subscribeExports } from './exportDownloads';
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

/** Desktop app: the export's job, writing the file chosen in the system's save dialog. */
const useExportDialog = () => useOperation('pois.exportDialog', () => [jobKeys.all]);
/** Browser mode: the export's job, writing a file in the data folder that is then downloaded. */
const useStartExport = () => useOperation('exports.start', () => [jobKeys.all]);

/**
 * An export as a job: started by a format button (browser mode) or after the save dialog (the
 * desktop app), its rows of the client's count asked for while it runs, Cancel stopping it with
 * no file left. Once done, browser mode downloads its file (and can again), even when this
 * panel was closed meanwhile (exportDownloads.ts).
 */
export function useExportPois(clientId: string) {
  const queryClient = useQueryClient();
  const dialog = useExportDialog();
  const starter = useStartExport();
  const cancelJob = useCancelJob();
  const jobId = useSyncExternalStore(subscribeExports, () => shownExport(clientId));
  const failure = useSyncExternalStore(subscribeExports, () => downloadFailure(jobId));
  const watched = useJob(jobId);
  const job = watched.data?.kind === 'export' ? watched.data : undefined;
  const start = (format: ExportFormat, csvFlavour: CsvFlavour): void => {
    const onSuccess = (started: ExportJob | null): void => {
      if (!started) return;
      seedJob(queryClient, started);
      followExport(clientId, started.id);
    };
    if (inBrowserMode) starter.mutate({ clientId, format, csvFlavour }, { onSuccess });
    else dialog.mutate({ clientId, format, csvFlavour }, { onSuccess });
  };
  return {
    job,
    starting: starter.isPending || dialog.isPending,
    error: starter.errors.form ?? dialog.errors.form ?? failure ?? watched.error?.message,
    start,
    cancel: (): void => {
      if (jobId) cancelJob.mutate({ id: jobId });
    },
    downloadAgain: (): void => {
      if (job) void download(job.id);
    },
  };
}

/** What the person chose for an import: a check or the import, categories created, the category of rows that name none, identical rows added. */
export interface ImportChoices {
  dryRun: boolean;
  createCategories: boolean;
  defaultCategory?: string;
  addIdentical: boolean;
}

/** Desktop app: the system's open dialog, then the chosen file's import job. */
const useImportDialog = () => useOperation('pois.importDialog', () => [jobKeys.all]);

/**
 * An import (or a Check only) of a CSV or GeoJSON file into the client, as a job: browser mode
 * sends the file first (its share sent is the progress, Cancel aborts the upload), then the job
 * runs in the main process; the desktop's open dialog gives the job at once. Its progress is
 * asked for while it runs, Cancel stops it (what it wrote is undone), and its report shows once
 * it has ended.
 */
export function useImportPois(clientId: string) {
  const queryClient = useQueryClient();
  const [sent, setSent] = useState<number | undefined>();
  const [jobId, setJobId] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const controller = useRef<AbortController | undefined>(undefined);
  // After a reload, an import of this client still running is the one shown (and can be cancelled).
  const runningHere = useClientJobs(clientId).data?.find((j) => j.state === 'running' && isImportJob(j));
  useEffect(() => {
    if (jobId === undefined && sent === undefined && runningHere) setJobId(runningHere.id);
  }, [jobId, sent, runningHere]);
  const watched = useJob(jobId);
  const job = watched.data && isImportJob(watched.data) ? watched.data : undefined;
  const cancelJob = useCancelJob();
  const dialog = useImportDialog();
  const running = sent !== undefined || (jobId !== undefined && (job === undefined || job.state === 'running'));
  const ended = job !== undefined && job.state !== 'running' ? job : undefined;
  const refreshed = useRef<string | undefined>(undefined);
  useEffect(() => {
    // What an import changed (or undid) is read again once, when it ends.
    if (!ended || refreshed.current === ended.id) return;
    refreshed.current = ended.id;
    void queryClient.invalidateQueries({ queryKey: poiKeys.all(clientId) });
    void queryClient.invalidateQueries({ queryKey: categoryKeys.list(clientId) });
    void queryClient.invalidateQueries({ queryKey: jobKeys.ofClient(clientId) });
  }, [ended, clientId, queryClient]);

  const started = (answer: Answer<JobView | null>): void => {
    if (!answer.ok) setError(new ConsoleError(answer.error).message);
    else if (answer.value) setJobId(answer.value.id);
  };
  const begin = (): void => {
    setError(undefined);
    setJobId(undefined);
  };
  /** Browser mode: the file sent, then imported. */
  const start = async (file: File, format: ImportFormat, options: ImportChoices): Promise<void> => {
    const abort = new AbortController();
    controller.current = abort;
    begin();
    setSent(0);
    try {
      started(await uploadImport(file, { clientId, format, filename: file.name, ...options }, setSent, abort.signal));
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(e instanceof Error ? e.message : String(e));
      // Cancelled once the whole file was sent, the job may have started: the client's jobs are
      // asked for again, and a running one is shown with its own Cancel.
      else void queryClient.invalidateQueries({ queryKey: jobKeys.ofClient(clientId) });
    } finally {
      setSent(undefined);
      controller.current = undefined;
    }
  };
  /** The desktop app: the system's open dialog picks the file. */
  const pick = async (options: ImportChoices): Promise<void> => {
    begin();
    try {
      started({ ok: true, value: await dialog.mutateAsync({ clientId, ...options }) });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const cancel = (): void => {
    if (controller.current) controller.current.abort();
    else if (jobId !== undefined) cancelJob.mutate({ id: jobId });
  };
  const reset = (): void => {
    setJobId(undefined);
    setError(undefined);
  };
  // A job that can no longer be read (its client deleted meanwhile) is not waited for.
  const lost = watched.error ? `The import's progress cannot be read: ${watched.error.message}` : undefined;
  return { start, pick, cancel, sent, job, running: running && !lost, ended, error: error ?? lost ?? cancelJob.errors.form, reset };
}
