import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** The location source's setting and a receiver's state (location.ts). */
export function locationConsole(core: Services): Handlers<Extract<CoreOp, `location.${string}`>> {
  return {
    'location.status': () => core.location.status(),
    'location.configure': (i) => core.location.configure(i),
  };
}
