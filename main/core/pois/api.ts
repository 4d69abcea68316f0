import type { ApiName } from '../../../shared/api/operations.js';
import type { ApiHandlers, ApiParts } from '../api/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import { actorOf } from '../tokens/tokens.js';

/** POIs (spec 4.1, 4.2 and api-extensions.md): any token of the client reads and adds; its administrator updates, deletes and reads the history. */
export function poisApi(c: ApiParts): Pick<ApiHandlers, Extract<ApiName, `pois.${string}`>> {
  return {
    'pois.add': ({ principal }, input) => c.pois.add(principal.clientId, c.tokens.author(principal), input),
    'pois.update': ({ principal }, input) => c.pois.update(principal.clientId, input, c.tokens.author(principal)),
    'pois.get': ({ principal }, { poi }) => c.pois.get(principal.clientId, poi),
    'pois.near': ({ principal }, input) => c.queries.near(principal.clientId, input),
    'pois.where': ({ principal }, input) => c.queries.where(principal.clientId, input),
    'pois.delete': ({ principal }, { poi }) => {
      c.pois.remove(principal.clientId, poi, actorOf(principal));
      return OK_BODY;
    },
    'pois.history': ({ principal }, { poi }) => c.changes.poiHistory(principal.clientId, poi),
  };
}
