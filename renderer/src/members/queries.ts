import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const memberKeys = {
  list: (clientId: string) => ['members', clientId] as const,
};

export const useMembers = (clientId: string) =>
  useQuery({ queryKey: memberKeys.list(clientId), queryFn: () => call('members.list', { clientId, page: { count: 200, page: 0 } }) });
