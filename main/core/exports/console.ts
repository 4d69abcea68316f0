import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';
import { startExport } from './export-job.js';

/** An export as a job, to a file in the data folder that a download then fetches. */
export function exportsConsole(core: Services): Handlers<Extract<CoreOp, `exports.${string}`>> {
  return {
    'exports.start': ({ clientId, format, csvFlavour }) => startExport(core, clientId, format, { csvFlavour }),
  };
}
