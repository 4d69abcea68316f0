import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const syncKeys = {
  status: ['sync', 'status'] as const,
  conflicts: ['sync', 'conflicts'] as const,
};

/** Where this desktop is with the central; read every 2 s while a sync runs (its progress), else every 15 s. */
export const useSyncStatus = () =>
  useQuery({ queryKey: syncKeys.status, queryFn: () => call('sync.status', {}), refetchInterval: (q) => (q.state.data?.running ? 2_000 : 15_000) });

/** The central's open conflicts of this desktop's client application (asked only once a central is set). */
export const useSyncConflicts = (enabled: boolean) => useQuery({ queryKey: syncKeys.conflicts, queryFn: () => call('sync.conflicts', {}), enabled, retry: false });
