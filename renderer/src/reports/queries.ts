import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const reportKeys = {
  open: (clientId: string) => ['reports', clientId] as const,
};

/** The client's open problem reports, oldest first. */
export const useOpenReports = (clientId: string) => useQuery({ queryKey: reportKeys.open(clientId), queryFn: () => call('warnings.open', { clientId }) });
