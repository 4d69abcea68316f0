import type { ApiName } from '../../../shared/api/operations.js';
import type { ApiHandlers, ApiParts } from '../api/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import type { WarningReply } from '../../../shared/wire.js';
import { poiNotFound } from '../pois/pois.js';
import { actorOf } from '../tokens/tokens.js';
import { warningListPoi } from './warning-reply.js';

/** Problem reports about POIs: any token reports and lists; the client's administrator closes them. */
export function warningsApi(c: ApiParts): Pick<ApiHandlers, Extract<ApiName, `warnings.${string}`>> {
  return {
    /** Open reports grouped by POI, each with the POI as it is now. */
    'warnings.list': ({ principal }, { poi, type }) => {
      const reports = c.warnings.list(principal.clientId, poi, type);
      const byPoi = new Map<number, WarningReply[]>();
      for (const w of reports) {
        let list = byPoi.get(w.poi_id);
        if (!list) byPoi.set(w.poi_id, (list = []));
        list.push(w);
      }
      const rows = [...byPoi.keys()].map((id) => c.store.get(principal.clientId, id)).filter((r) => r !== undefined);
      return c.pois.replies(rows).map((poi) => ({ current: warningListPoi(poi), warnings: byPoi.get(poi.id) ?? [] }));
    },
    'warnings.add': ({ principal }, input) => {
      const author = c.tokens.author(principal);
      return c.writes.run(author.actor, () => {
        author.assertStillValid();
        if (!c.store.get(principal.clientId, input.poi)) throw poiNotFound(input.poi);
        if (input.type === 'WRONG_INFO' && input.categories) c.categories.assertUsable(principal.clientId, input.categories);
        return c.warnings.add(author.memberId, input);
      });
    },
    /**
     * The administrator marks reports as processed: they stop counting. `poi` may list several
     * POIs (`poi=1,4`, as the old SDK sends it); one that is not the client's refuses the whole call.
     */
    'warnings.delete': ({ principal }, { poi, type }) => {
      const missing = poi.find((id) => !c.store.get(principal.clientId, id));
      if (missing !== undefined) throw poiNotFound(missing);
      c.warnings.remove(poi, type, actorOf(principal));
      return OK_BODY;
    },
  };
}
