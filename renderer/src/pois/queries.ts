import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import type { Input } from '../../../shared/contract';
import { categoryKeys } from '../categories/queries';
import { call } from '../transport';

type View = Omit<Input<'pois.map'>, 'clientId'>;
/** What a form asks about while it is filled in: where, what name, and which POI it edits (left out). */
export type DuplicateProbe = Omit<Input<'pois.duplicates'>, 'clientId'>;

/** Every query of a client's POIs starts with `all(clientId)`: a change to them makes that prefix stale. */
export const poiKeys = {
  all: (clientId: string) => ['pois', clientId] as const,
  map: (clientId: string, view: View) => [...poiKeys.all(clientId), 'map', view] as const,
  one: (clientId: string, poi: number) => [...poiKeys.all(clientId), 'one', poi] as const,
  search: (clientId: string, q: string, categories: number[]) => [...poiKeys.all(clientId), 'search', q, categories] as const,
  warnings: (clientId: string, poi: number) => [...poiKeys.all(clientId), 'warnings', poi] as const,
  duplicates: (clientId: string, probe: DuplicateProbe | undefined) => [...poiKeys.all(clientId), 'duplicates', probe] as const,
  /** Of the whole database, not of one client. */
  version: ['pois-version'] as const,
};

/** How often an open map asks whether the data under it changed. */
const VERSION_POLL_MS = 2000;

/** The map query of one view; also used to start fetching a view the moment the map stops moving. */
export const mapViewQuery = (clientId: string, view: View) => ({
  queryKey: poiKeys.map(clientId, view),
  queryFn: () => call('pois.map', { clientId, ...view }),
});

export const useMapView = (clientId: string | undefined, view: View | undefined) =>
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
/** The data's version, asked once: also how the service banner sees whether the service answers. */
export const readVersion = () => call('pois.version', {});

export function useLiveData(clientId: string | undefined): void {
  const queryClient = useQueryClient();
  const version = useQuery({ queryKey: poiKeys.version, queryFn: readVersion, refetchInterval: VERSION_POLL_MS });
  const seen = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (version.data === undefined) return;
    if (seen.current !== undefined && seen.current !== version.data && clientId !== undefined) {
      void queryClient.invalidateQueries({ queryKey: poiKeys.all(clientId) });
      void queryClient.invalidateQueries({ queryKey: categoryKeys.list(clientId) });
    }
    seen.current = version.data;
  }, [version.data, clientId, queryClient]);
}

export const usePoi = (clientId: string | undefined, poi: number | undefined) =>
  useQuery({ queryKey: poiKeys.one(clientId ?? '', poi ?? 0), queryFn: () => call('pois.get', { clientId: clientId!, poi: poi! }), enabled: !!clientId && !!poi });

export const useWarnings = (clientId: string, poi: number) =>
  useQuery({ queryKey: poiKeys.warnings(clientId, poi), queryFn: () => call('warnings.list', { clientId, poi }) });

/** Results shown per page of the search list. */
export const SEARCH_PAGE = 50;

/** One page of a search (after the POI id ending the previous page), with how many match in all. */
export const useSearch = (clientId: string | undefined, q: string, categories: number[], after: number | undefined) =>
  useQuery({
    queryKey: [...poiKeys.search(clientId ?? '', q, categories), after ?? 0],
    queryFn: () =>
      call('pois.searchPage', { clientId: clientId!, ...(q ? { q } : {}), ...(categories.length ? { categories } : {}), ...(after ? { after } : {}), limit: SEARCH_PAGE }),
    enabled: !!clientId && (q !== '' || categories.length > 0),
    placeholderData: (previous) => previous,
  });

/** A POI's changes and its reports', newest first, from the change log (refreshed with every view of the client's POIs). */
export const usePoiHistory = (clientId: string, poi: number) =>
  useQuery({ queryKey: [...poiKeys.one(clientId, poi), 'history'], queryFn: () => call('pois.history', { clientId, poi }) });

/**
 * The client's POIs within 50 m with a similar name (the server decides what is similar), for the
 * add and edit forms' notice; none is asked for while there is no probe (no name yet).
 */
export const useDuplicates = (clientId: string, probe: DuplicateProbe | undefined) =>
  useQuery({
    queryKey: poiKeys.duplicates(clientId, probe),
    queryFn: () => call('pois.duplicates', { clientId, ...probe! }),
    enabled: probe !== undefined,
    // The last answer stays while the next is asked: the notice does not blink at each pause.
    placeholderData: keepPreviousData,
  });
