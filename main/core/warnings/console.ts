import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** The reports of a POI. */
export function warningsConsole(core: Services): Handlers<Extract<CoreOp, `warnings.${string}`>> {
  return {
    'warnings.list': (i) => core.warnings.list(core.clients.requireId(i.clientId), [i.poi], undefined),
  };
}
