import type { CoreOp, Handlers } from '../console/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import type { Services } from '../services.js';
import { applyReport, dismissReport, openReports } from './handling.js';

/** The reports of a POI, and the client's open reports handled: applied or dismissed. */
export function warningsConsole(core: Services): Handlers<Extract<CoreOp, `warnings.${string}`>> {
  return {
    'warnings.list': (i) => core.warnings.list(core.clients.requireId(i.clientId), [i.poi], undefined),
    'warnings.open': (i) => openReports(core, core.clients.requireId(i.clientId)),
    'warnings.apply': (i) => applyReport(core, core.clients.requireId(i.clientId), i.warning),
    'warnings.dismiss': (i) => {
      dismissReport(core, core.clients.requireId(i.clientId), i.warning);
      return OK_BODY;
    },
  };
}
