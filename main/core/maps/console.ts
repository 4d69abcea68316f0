import { OK_BODY } from '../../../shared/errors.js';
import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** Listing and removing packages; importing takes a file, which each host brings its own way. */
export function mapsConsole(core: Services): Handlers<Extract<CoreOp, `maps.${string}`>> {
  return {
    'maps.list': () => core.maps.list(),
    'maps.remove': ({ id }) => {
      core.maps.remove(id);
      return OK_BODY;
    },
  };
}
