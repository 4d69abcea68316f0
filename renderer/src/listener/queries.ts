import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const listenerKeys = {
  status: ['listener'] as const,
};

/** Polled: the listener's state also changes by itself (starting, listening, failed). */
export const useListener = () => useQuery({ queryKey: listenerKeys.status, queryFn: () => call('listener.status', {}), refetchInterval: 2000 });
