import { useOperation } from '../operation';
import { poiKeys } from '../pois/queries';
import { reportKeys } from '../reports/queries';

/** A merge deletes a POI and moves its reports: every view of the client's POIs and its reports are stale. */
export const useMergePois = () => useOperation('pois.merge', (i) => [poiKeys.all(i.clientId), reportKeys.open(i.clientId)]);
