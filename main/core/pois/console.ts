import type { CoreOp, Handlers } from '../console/handlers.js';
import { OK_BODY } from '../../../shared/errors.js';
import type { Services } from '../services.js';

/** POIs of any client application: the map, one POI, search, possible duplicates, add, update, delete, history. */
export function poisConsole(core: Services): Handlers<Extract<CoreOp, `pois.${string}`>> {
  return {
    'pois.map': (i) => core.mapViews.view(core.clients.requireId(i.clientId), i),
    'pois.version': () => core.watch.version(),
    'pois.get': (i) => core.pois.get(core.clients.requireId(i.clientId), i.poi),
    'pois.add': (i) => core.pois.add(core.clients.requireId(i.clientId), null, i.fields),
    'pois.update': (i) => core.pois.update(core.clients.requireId(i.clientId), i.fields),
    'pois.delete': (i) => {
      core.pois.remove(core.clients.requireId(i.clientId), i.poi);
      return OK_BODY;
    },
    'pois.duplicates': (i) => core.queries.duplicates(core.clients.requireId(i.clientId), i, i.except),
    'pois.search': (i) => core.queries.where(core.clients.requireId(i.clientId), i.filter),
    'pois.searchPage': (i) => core.queries.page(core.clients.requireId(i.clientId), i),
    'pois.history': (i) => core.changes.poiHistory(core.clients.requireId(i.clientId), i.poi),
    'pois.duplicatePairs': (i) => core.read(() => core.merges.pairs(core.clients.requireId(i.clientId), i.after)),
    'pois.merge': (i) => core.merges.merge(core.clients.requireId(i.clientId), i.keep, i.other),
  };
}
