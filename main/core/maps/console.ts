import { OK_BODY } from '../../../shared/errors.js';
import type { CoreOp, Handlers } from '../console/handlers.js';
import { clientExtent } from '../pois/extent.js';
import type { Services } from '../services.js';

/** Listing and removing packages; importing takes a file, which each host brings its own way. */
export function mapsConsole(core: Services): Handlers<Extract<CoreOp, `maps.${string}`>> {
  return {
    'maps.list': () => core.maps.list(),
    // Where the map opens when the page gives no view: on the client's data, else on a package.
    'maps.startView': ({ clientId }) => {
      const extent = clientId === undefined ? undefined : clientExtent(core.db, clientId);
      if (extent) return { kind: 'bounds', ...extent };
      const [first] = core.maps.list();
      if (first === undefined) return null;
      const [lng, lat, zoom] = first.center;
      return { kind: 'place', lat, lng, zoom: Math.max(zoom, first.minZoom) };
    },
    'maps.remove': ({ id }) => {
      core.maps.remove(id);
      return OK_BODY;
    },
  };
}
