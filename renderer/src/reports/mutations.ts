import { useOperation } from '../operation';
import { poiKeys } from '../pois/queries';
import { reportKeys } from './queries';

/** Applying a report changes its POI (every view of the client's POIs) and closes the report. */
const changed = (i: { clientId: string }) => [reportKeys.open(i.clientId), poiKeys.all(i.clientId)];

export const useApplyReport = () => useOperation('warnings.apply', changed);

export const useDismissReport = () => useOperation('warnings.dismiss', changed);
