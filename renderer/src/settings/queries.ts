import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const settingsKeys = {
  all: ['settings'] as const,
};

export const useSettings = () => useQuery({ queryKey: settingsKeys.all, queryFn: () => call('settings.get', {}) });
