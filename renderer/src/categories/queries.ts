import { useQuery } from '@tanstack/react-query';
import { call } from '../transport';

export const categoryKeys = {
  /** A client's categories, its own and the system ones. */
  list: (clientId: string) => ['categories', clientId] as const,
};

export const useCategories = (clientId: string | undefined) =>
  useQuery({ queryKey: categoryKeys.list(clientId ?? ''), queryFn: () => call('categories.list', { clientId: clientId! }), enabled: !!clientId });
