import type { CoreOp, Handlers } from '../console/handlers.js';
import { largestPlaces } from '../geocode/index.js';

/** The bundled map's place names: read from the geocoder's own city table, for any client. */
export function placesConsole(): Handlers<Extract<CoreOp, `map.${string}`>> {
  return {
    'map.places': (i) => largestPlaces(i, i.limit),
  };
}
