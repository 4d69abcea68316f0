import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const settingsKeys = {
  all: ['settings'] as const,
  tileCache: ['settings', 'tile-cache'] as const,
};

/** How much of the online tiles the data folder keeps for offline use. */
export const useTileCacheStatus = () => useQuery({ queryKey: settingsKeys.tileCache, queryFn: () => call('tiles.cacheStatus', {}) });

export const useSettings = () => useQuery({ queryKey: settingsKeys.all, queryFn: () => call('settings.get', {}) });
