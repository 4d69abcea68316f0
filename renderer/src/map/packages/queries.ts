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

/** Where the map opens when the address names no view (a package, while there are no POIs yet). */
export const useStartView = (enabled: boolean) =>
  useQuery({ queryKey: ['maps', 'start-view'], queryFn: () => call('maps.startView', {}), enabled, staleTime: Infinity });
