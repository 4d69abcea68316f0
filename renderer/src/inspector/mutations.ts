import { useOperation } from '../operation';

/** Sends a request again to the listener; its replay shows up in the list by itself. */
export const useReplay = () => useOperation('inspector.replay', () => []);

export const useClearRequests = () => useOperation('inspector.clear', () => []);

export const useConfigureInspector = () => useOperation('inspector.configure', () => []);
