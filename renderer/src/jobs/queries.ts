import { useQuery, type QueryClient } from '@tanstack/react-query';
import type { JobView } from '../../../shared/jobs';
import { call } from '../transport';

export const jobKeys = {
  all: ['jobs'] as const,
  one: (id: string) => ['jobs', 'one', id] as const,
  ofClient: (clientId: string) => ['jobs', 'client', clientId] as const,
  recent: ['jobs', 'recent'] as const,
};

/** How often a running job's progress is asked for. */
const POLL_MS = 300;

/** One job as it is now (also for what follows a job outside a component: pois/exportDownloads.ts). */
export const fetchJob = (id: string): Promise<JobView> => call('jobs.get', { id });

/** One job, asked again while it runs. */
export const useJob = (id: string | undefined) =>
  useQuery({
    queryKey: jobKeys.one(id ?? ''),
    queryFn: () => fetchJob(id!),
    enabled: !!id,
    // Stops on a refusal (the job gone with its client): asking again every 300 ms would never end.
    refetchInterval: (query) => (query.state.data?.state === 'running' && !query.state.error ? POLL_MS : false),
    retry: 1,
  });

/** A client's recent jobs (imports and checks), newest first, with their reports. */
export const useClientJobs = (clientId: string) => useQuery({ queryKey: jobKeys.ofClient(clientId), queryFn: () => call('jobs.list', { clientId }) });

/** The newest jobs of every kind (a restore, a map package's import), newest first. */
export const useRecentJobs = () => useQuery({ queryKey: jobKeys.recent, queryFn: () => call('jobs.list', {}) });

/** A job just started, shown at once from its start's answer, before the first poll comes back. */
export const seedJob = (queryClient: QueryClient, job: JobView): void => {
  queryClient.setQueryData(jobKeys.one(job.id), job);
};
