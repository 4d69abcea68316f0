import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { RestoreJob } from '../../../shared/jobs';
import { useCancelJob } from '../jobs/mutations';
import { jobKeys, useJob, useRecentJobs } from '../jobs/queries';
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
  const runningNow = useRecentJobs().data?.find((j) => j.kind === 'restore' && j.state === 'running');
  useEffect(() => {
    if (jobId === undefined && runningNow) setJobId(runningNow.id);
  }, [jobId, runningNow]);
  const watched = useJob(jobId);
  const job: RestoreJob | undefined = watched.data?.kind === 'restore' ? watched.data : undefined;
  const refreshed = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (job === undefined || job.state === 'running' || refreshed.current === job.id) return;
    refreshed.current = job.id;
    void queryClient.invalidateQueries({ queryKey: job.state === 'done' ? [] : backupsKeys.all });
  }, [job, queryClient]);
  const start = (name: string): void => {
    setJobId(undefined);
    starter.mutate({ name }, { onSuccess: (started) => setJobId(started.id) });
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
