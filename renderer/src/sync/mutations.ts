import { useOperation } from '../operation';
import { syncKeys } from './queries';

/** A sync may change every POI, category and member: everything is read again, its own status included. */
const everything = () => [[]];

export const useConfigureSync = () => useOperation('sync.configure', everything, ['url', 'credential']);

export const useSyncNow = () => useOperation('sync.now', everything);

export const useResolveConflict = () => useOperation('sync.resolve', () => [[], syncKeys.conflicts]);
