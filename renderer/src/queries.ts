import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { Input, OpName, Output } from '../../shared/contract';
import { call } from './transport';

/** Query keys, one factory per feature: a mutation invalidates the prefix of what it changes. */
export const keys = {
  clients: ['clients'] as const,
  categories: (clientId: string) => ['categories', clientId] as const,
  pois: (clientId: string) => ['pois', clientId] as const,
  map: (clientId: string, view: Omit<Input<'pois.map'>, 'clientId'>) => ['pois', clientId, 'map', view] as const,
  poi: (clientId: string, poi: number) => ['pois', clientId, 'one', poi] as const,
  search: (clientId: string, q: string, categories: number[]) => ['pois', clientId, 'search', q, categories] as const,
  warnings: (clientId: string, poi: number) => ['pois', clientId, 'warnings', poi] as const,
  members: (clientId: string) => ['members', clientId] as const,
  listener: ['listener'] as const,
  settings: ['settings'] as const,
  version: ['version'] as const,
};

/** How often an open map asks whether the data under it changed. */
const VERSION_POLL_MS = 2000;

export const useClients = () => useQuery({ queryKey: keys.clients, queryFn: () => call('clients.list', {}) });

export const useCategories = (clientId: string | undefined) =>
  useQuery({ queryKey: keys.categories(clientId ?? ''), queryFn: () => call('categories.list', { clientId: clientId! }), enabled: !!clientId });

/** The map query of one view; also used to start fetching a view the moment the map stops moving. */
export const mapViewQuery = (clientId: string, view: Omit<Input<'pois.map'>, 'clientId'>) => ({
  queryKey: keys.map(clientId, view),
  queryFn: () => call('pois.map', { clientId, ...view }),
});

export const useMapView = (clientId: string | undefined, view: Omit<Input<'pois.map'>, 'clientId'> | undefined) =>
  useQuery({
    ...mapViewQuery(clientId ?? '', view ?? { south: 0, north: 0, west: 0, east: 0, zoom: 0 }),
    enabled: !!clientId && !!view,
    // Keep drawing the last view while the next one loads: no flicker on pan.
    placeholderData: keepPreviousData,
  });

/**
 * While the map is shown: asks for the data's version every 2 s and, when it moves (a write from
 * this window, or from another process on the same database, such as a `cli serve` beside the
 * app), refetches the client's POI queries and categories, so the open map redraws by itself.
 */
export function useLiveData(clientId: string): void {
  const queryClient = useQueryClient();
  const version = useQuery({ queryKey: keys.version, queryFn: () => call('pois.version', {}), refetchInterval: VERSION_POLL_MS });
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (version.data === undefined) return;
    if (seen.current !== undefined && seen.current !== version.data) {
      void queryClient.invalidateQueries({ queryKey: keys.pois(clientId) });
      void queryClient.invalidateQueries({ queryKey: keys.categories(clientId) });
    }
    seen.current = version.data;
  }, [version.data, clientId, queryClient]);
}

export const usePoi = (clientId: string | undefined, poi: number | undefined) =>
  useQuery({ queryKey: keys.poi(clientId ?? '', poi ?? 0), queryFn: () => call('pois.get', { clientId: clientId!, poi: poi! }), enabled: !!clientId && !!poi });

export const useWarnings = (clientId: string, poi: number) =>
  useQuery({ queryKey: keys.warnings(clientId, poi), queryFn: () => call('warnings.list', { clientId, poi }) });

export const useSearch = (clientId: string | undefined, q: string, categories: number[]) =>
  useQuery({
    queryKey: keys.search(clientId ?? '', q, categories),
    queryFn: () => call('pois.search', { clientId: clientId!, filter: { ...(q ? { q } : {}), ...(categories.length ? { categories } : {}), total: 50 } }),
    enabled: !!clientId && (q !== '' || categories.length > 0),
  });

export const useMembers = (clientId: string) =>
  useQuery({ queryKey: keys.members(clientId), queryFn: () => call('members.list', { clientId, page: { count: 200, page: 0 } }) });

export const useListener = () => useQuery({ queryKey: keys.listener, queryFn: () => call('listener.status', {}), refetchInterval: 2000 });

export const useSettings = () => useQuery({ queryKey: keys.settings, queryFn: () => call('settings.get', {}) });

/** A mutation of one operation that invalidates the given keys when it succeeds. */
export function useOp<K extends OpName>(op: K, invalidates: (input: Input<K>) => ReadonlyArray<readonly unknown[]>) {
  const client = useQueryClient();
  return useMutation<Output<K>, Error, Input<K>>({
    mutationFn: (input) => call(op, input),
    onSuccess: async (_value, input) => {
      await Promise.all(invalidates(input).map((queryKey) => client.invalidateQueries({ queryKey })));
    },
  });
}
