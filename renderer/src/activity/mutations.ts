import { categoryKeys } from '../categories/queries';
import { useOperation } from '../operation';
import { poiKeys } from '../pois/queries';
import { reportKeys } from '../reports/queries';
import { activityKeys } from './queries';

/** An undo writes POIs, their reports and (an import's) categories, and adds to the activity list. */
const changed = (i: { clientId: string }) => [poiKeys.all(i.clientId), reportKeys.open(i.clientId), activityKeys.all(i.clientId), categoryKeys.list(i.clientId)];

export const useUndoChange = () => useOperation('changes.undo', changed);

export const useUndoImport = () => useOperation('imports.undo', changed);
