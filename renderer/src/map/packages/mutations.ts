import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { Answer } from '../../../../shared/contract';
import { JOB_PHASES, type MapImportJob } from '../../../../shared/jobs';
import type { MapPackage } from '../../../../shared/maps';
import { useCancelJob } from '../../jobs/mutations';
import { jobKeys, seedJob, useJob } from '../../jobs/queries';
import { useOperation } from '../../operation';
import { ConsoleError, inBrowserMode, uploadMapPackage } from '../../transport';
import { mapPackageKeys } from './queries';

export const useRemovePackage = () => useOperation('maps.remove', () => [mapPackageKeys.list]);

/** Electron: the system's file dialog, then the import's job (the shell answers). */
const useImportDialog = () => useOperation('maps.importDialog', () => [jobKeys.all]);

export interface Upload {
  file: string;
  /** What is under way, in words: sending the file, then the import's steps. */
  step: string;
  /** 0..1 of the step, or null when it cannot be told (reading and checking the file). */
  progress: number | null;
}

/** The import's job as the panel shows it. */
const shown = (job: MapImportJob): Upload => {
  const { phase, bytes, totalBytes, cancelling } = job.progress;
  const step = cancelling ? 'Cancelling' : phase ? JOB_PHASES[phase] : 'Starting';
  return { file: job.label, step, progress: phase === 'copying' && totalBytes ? bytes / totalBytes : null };
};

/**
 * A map package's import: browser mode sends the file (its share sent is the progress, Cancel
 * aborts the upload), the desktop's open dialog picks it; either way a job then reads, checks and
 * copies it in the main process, its steps asked for while it runs, Cancel stopping it with
 * nothing kept. The refusal is said in words (a broken file is refused whole).
 */
export function useImportPackage(onImported: (pkg: MapPackage) => void) {
  const queryClient = useQueryClient();
  const [sending, setSending] = useState<Upload | undefined>();
  const [jobId, setJobId] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const controller = useRef<AbortController | undefined>(undefined);
  const dialog = useImportDialog();
  const cancelJob = useCancelJob();
  const watched = useJob(jobId);
  const job = watched.data?.kind === 'map-import' ? watched.data : undefined;
  const seen = useRef<string | undefined>(undefined);
  // The latest callback, without making the effect below run on every render.
  const imported = useRef(onImported);
  imported.current = onImported;

  useEffect(() => {
    // Once, when the job ends: the list read again, and the package shown or the refusal said.
    if (job === undefined || job.state === 'running' || seen.current === job.id) return;
    seen.current = job.id;
    setJobId(undefined);
    void queryClient.invalidateQueries({ queryKey: mapPackageKeys.list });
    if (job.state === 'done' && job.report) imported.current(job.report);
    else if (job.state !== 'cancelled') setError(job.error ?? 'The import stopped.');
  }, [job, queryClient]);
  useEffect(() => {
    if (watched.error) {
      setError(watched.error.message);
      setJobId(undefined);
    }
  }, [watched.error]);

  const started = (answer: Answer<MapImportJob | null>): void => {
    if (!answer.ok) setError(new ConsoleError(answer.error).message);
    else if (answer.value) {
      seedJob(queryClient, answer.value);
      setJobId(answer.value.id);
    }
  };

  /** Browser mode: the file sent, then imported by its job. */
  const start = async (file: File): Promise<void> => {
    if (!inBrowserMode) return;
    // One at a time: a second file dropped meanwhile would take the first one's Cancel and report.
    if (controller.current !== undefined || jobId !== undefined) {
      setError(`${file.name} was not imported: another map package is being imported. Wait for it to end, or cancel it.`);
      return;
    }
    const abort = new AbortController();
    controller.current = abort;
    setError(undefined);
    const sendingStep = (progress: number): Upload => ({ file: file.name, step: 'Sending the file', progress });
    setSending(sendingStep(0));
    try {
      started(await uploadMapPackage(file, (progress) => setSending(sendingStep(progress)), abort.signal));
    } catch (e) {
      if (!(e instanceof DOMException && e.name === 'AbortError')) setError(e instanceof Error ? e.message : String(e));
    } finally {
      if (controller.current === abort) {
        controller.current = undefined;
        setSending(undefined);
      }
    }
  };
  /** The desktop app: the system's open dialog picks the file. */
  const pick = async (): Promise<void> => {
    setError(undefined);
    try {
      started({ ok: true, value: await dialog.mutateAsync({}) });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    }
  };
  const cancel = (): void => {
    if (controller.current) controller.current.abort();
    else if (jobId) cancelJob.mutate({ id: jobId });
  };
  const upload = sending ?? (job?.state === 'running' ? shown(job) : jobId !== undefined ? { file: '', step: 'Starting', progress: null } : undefined);
  return { upload, error, start, pick, picking: dialog.isPending, cancel, dismiss: () => setError(undefined) };
}
