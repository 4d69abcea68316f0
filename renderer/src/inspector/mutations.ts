import { useOperation } from '../operation';

/** Sends a request again to the listener; its replay shows up in the list by itself. */
export const useReplay = () => useOperation('inspector.replay', () => []);

export const useClearRequests = () => useOperation('inspector.clear', () => []);

/** Writes the requests kept, masked, to a file in the data folder. */
export const useSaveRequests = () => useOperation('inspector.save', () => []);

export const useConfigureInspector = () => useOperation('inspector.configure', () => []);
