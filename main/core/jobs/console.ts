import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** Long work's progress, reports and cancel. */
export function jobsConsole(core: Services): Handlers<Extract<CoreOp, `jobs.${string}`>> {
  return {
    'jobs.list': (i) => core.jobs.list(i.clientId === undefined ? undefined : core.clients.requireId(i.clientId)),
    'jobs.get': (i) => core.jobs.get(i.id),
    'jobs.cancel': (i) => core.jobs.cancel(i.id),
  };
}
