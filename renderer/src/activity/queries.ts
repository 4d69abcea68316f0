import { useInfiniteQuery } from '@tanstack/react-query';
import type { IMPORT_PARTS } from '../../../shared/activity';
import type { Input } from '../../../shared/contract';
import { call } from '../transport';

export type ActivityFilter = Pick<Input<'changes.activity'>, 'actor' | 'entity'>;
type ImportPart = (typeof IMPORT_PARTS)[number];

export const activityKeys = {
  all: (clientId: string) => ['activity', clientId] as const,
  list: (clientId: string, filter: ActivityFilter) => [...activityKeys.all(clientId), filter] as const,
  ofImport: (clientId: string, importId: string, part: ImportPart) => [...activityKeys.all(clientId), 'import', importId, part] as const,
};

/** How many entries (or an import's changes) a page of the activity list reads. */
const PAGE = 50;

/** The client's last changes, newest first, a page at a time going back; an import is one entry. */
export const useActivity = (clientId: string, filter: ActivityFilter) =>
  useInfiniteQuery({
    queryKey: activityKeys.list(clientId, filter),
    queryFn: ({ pageParam }) => call('changes.activity', { clientId, ...filter, limit: PAGE, ...(pageParam ? { before: pageParam } : {}) }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
  });

/** One import's changes (or those that reversed it), read only once asked for (`enabled`), a page at a time. */
export const useImportChanges = (clientId: string, importId: string, part: ImportPart, enabled: boolean) =>
  useInfiniteQuery({
    queryKey: activityKeys.ofImport(clientId, importId, part),
    queryFn: ({ pageParam }) => call('changes.ofImport', { clientId, importId, part, limit: PAGE, ...(pageParam ? { before: pageParam } : {}) }),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => last.next ?? undefined,
    enabled,
  });
