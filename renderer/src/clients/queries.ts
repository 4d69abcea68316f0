import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const clientKeys = {
  all: ['clients'] as const,
};

export const useClients = () => useQuery({ queryKey: clientKeys.all, queryFn: () => call('clients.list', {}) });
