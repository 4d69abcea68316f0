import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { RestoreJob } from '../../../shared/jobs';
import { useCancelJob } from '../jobs/mutations';
import { jobKeys, seedJob, useJob, useRecentJobs } from '../jobs/queries';
import { useOperation } from '../operation';
import { backupsKeys } from './queries';

export const useCreateBackup = () => useOperation('backups.create', () => [backupsKeys.all]);

const useStartRestore = () => useOperation('backups.restore', () => [jobKeys.all]);

export const useRemoveBackup = () => useOperation('backups.remove', () => [backupsKeys.all]);

export const useConfigureBackups = () => useOperation('backups.configure', () => [backupsKeys.all], ['keepDaily']);

/**
 * A restore as a job: started by name, its steps asked for while it runs (picked up again after
 * a reload), Cancel until its last step. Once it has replaced the data, every query is read
 * again (the empty key matches them all).
 */
export function useRestore() {
  const queryClient = useQueryClient();
  const starter = useStartRestore();
  const cancelJob = useCancelJob();
  const [jobId, setJobId] = useState<string | undefined>();
  // After a reload, a restore still running is the one shown: picked up once, from the first list.
  const recent = useRecentJobs();
  const pickedUp = useRef(false);
  useEffect(() => {
    if (pickedUp.current || !recent.data) return;
    pickedUp.current = true;
    const runningNow = recent.data.find((j) => j.kind === 'restore' && j.state === 'running');
    if (runningNow) setJobId((now) => now ?? runningNow.id);
  }, [recent.data]);
  const watched = useJob(jobId);
  const job: RestoreJob | undefined = watched.data?.kind === 'restore' ? watched.data : undefined;
  const refreshed = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (job === undefined || job.state === 'running' || refreshed.current === job.id) return;
    refreshed.current = job.id;
    // Replaced, every piece of data is read again (the empty key matches every query); else the list and the jobs.
    if (job.state === 'done') void queryClient.invalidateQueries({ queryKey: [] });
    else for (const queryKey of [backupsKeys.all, jobKeys.all]) void queryClient.invalidateQueries({ queryKey });
  }, [job, queryClient]);
  const start = (name: string): void => {
    pickedUp.current = true;
    setJobId(undefined);
    starter.mutate(
      { name },
      {
        onSuccess: (started) => {
          seedJob(queryClient, started);
          setJobId(started.id);
        },
      },
    );
  };
  return {
    job,
    running: starter.isPending || job?.state === 'running',
    refused: starter.errors.form ?? watched.error?.message,
    start,
    cancel: (): void => {
      if (jobId) cancelJob.mutate({ id: jobId });
    },
  };
}
