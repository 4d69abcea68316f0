import { useQuery } from '@tanstack/react-query';
import { call, tileUrls } from '../../transport';

export const mapPackageKeys = {
  all: ['maps'] as const,
  list: ['maps', 'list'] as const,
  tileUrls: ['maps', 'tile-urls'] as const,
};

/** The offline map packages imported on this computer. */
export const useMapPackages = () => useQuery({ queryKey: mapPackageKeys.list, queryFn: () => call('maps.list', {}) });

/** How to build a package's tile URL; asked once (browser mode derives a key from the console token). */
export const useTileUrls = () => useQuery({ queryKey: mapPackageKeys.tileUrls, queryFn: tileUrls, staleTime: Infinity });

/** Where the map opens for a client when the address names no view: around its POIs, else on a package. */
export const useStartView = (clientId: string | undefined, enabled: boolean) =>
  useQuery({
    queryKey: ['maps', 'start-view', clientId ?? null],
    queryFn: () => call('maps.startView', clientId === undefined ? {} : { clientId }),
    enabled,
    staleTime: Infinity,
  });
