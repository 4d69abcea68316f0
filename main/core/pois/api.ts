import { POSSIBLE_DUPLICATES_HEADER, type ApiName } from '../../../shared/api/operations.js';
import type { ApiHandlers, ApiParts } from '../api/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import { actorOf } from '../tokens/tokens.js';


/**
 * POIs (docs/api-spec.md#add-a-poi, docs/api-spec.md#update-a-poi, docs/api-spec.md#pois): any
 * token of the client reads and adds; its administrator updates, deletes and reads the history.
 */
export function poisApi(c: ApiParts): Pick<ApiHandlers, Extract<ApiName, `pois.${string}`>> {
  return {
    'pois.add': async ({ principal }, input, header) => {
      const poi = await c.pois.add(principal.clientId, c.tokens.author(principal), input);
      // Never a refusal, and not in the body, whose keys old clients parse: a header for the
      // clients that ask (the check costs a spatial query on every add).
      if (input.duplicates) {
        const twins = c.queries.duplicates(principal.clientId, input, poi.id);
        if (twins.length > 0) header?.(POSSIBLE_DUPLICATES_HEADER, twins.map((t) => t.id).join(','));
      }
      return poi;
    },
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
