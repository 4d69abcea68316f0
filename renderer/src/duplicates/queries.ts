import { useInfiniteQuery } from '@tanstack/react-query';
import { call } from '../transport';
import { poiKeys } from '../pois/queries';

/** The client's possible duplicates two by two, page after page (under the POIs' key: any change of them makes it stale). */
export const useDuplicatePairs = (clientId: string) =>
  useInfiniteQuery({
    queryKey: [...poiKeys.all(clientId), 'duplicate-pairs'],
    queryFn: ({ pageParam }) => call('pois.duplicatePairs', { clientId, ...(pageParam ? { after: pageParam } : {}) }),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next ?? undefined,
  });
