import { useInfiniteQuery } from '@tanstack/react-query';
import type { Input } from '../../../shared/contract';
import { call } from '../transport';

export type ActivityFilter = Pick<Input<'changes.activity'>, 'actor' | 'entity'>;

export const activityKeys = {
  all: (clientId: string) => ['activity', clientId] as const,
  list: (clientId: string, filter: ActivityFilter) => [...activityKeys.all(clientId), filter] as const,
};

/** The client's last changes, newest first, a page at a time going back. */
export const useActivity = (clientId: string, filter: ActivityFilter) =>
  useInfiniteQuery({
    queryKey: activityKeys.list(clientId, filter),
    queryFn: ({ pageParam }) => call('changes.activity', { clientId, ...filter, limit: 50, ...(pageParam ? { before: pageParam } : {}) }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });
