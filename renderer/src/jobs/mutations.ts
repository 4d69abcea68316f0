import { useOperation } from '../operation';
import { jobKeys } from './queries';

/** Stops a job; its progress shows the cancel being carried out (an import undoing its writes). */
export const useCancelJob = () => useOperation('jobs.cancel', (i) => [jobKeys.one(i.id), jobKeys.all]);
