import { OK_BODY } from '../../../shared/errors.js';
import type { CoreOp, Handlers } from '../console/handlers.js';
import type { Services } from '../services.js';

/** Listing and removing packages; importing takes a file, which each host brings its own way. */
export function mapsConsole(core: Services): Handlers<Extract<CoreOp, `maps.${string}`>> {
  return {
    'maps.list': () => core.maps.list(),
    // Where the map opens when the page gives no view: on a package, while there is no POI to show.
    'maps.startView': () => {
      const [first] = core.maps.list();
      if (first === undefined || core.db.prepare('SELECT EXISTS (SELECT 1 FROM pois)').pluck().get() === 1) return null;
      const [lng, lat, zoom] = first.center;
      return { lat, lng, zoom: Math.max(zoom, first.minZoom) };
    },
    'maps.remove': ({ id }) => {
      core.maps.remove(id);
      return OK_BODY;
    },
  };
}
