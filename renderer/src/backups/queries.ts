import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const backupsKeys = {
  all: ['backups'] as const,
};

/** The data folder's backups, newest first, and how many daily ones are kept. */
export const useBackups = () => useQuery({ queryKey: backupsKeys.all, queryFn: () => call('backups.list', {}) });
