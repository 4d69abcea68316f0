import { categoryKeys } from '../categories/queries';
import { useOperation } from '../operation';
import { poiKeys } from '../pois/queries';
import { reportKeys } from '../reports/queries';
import { jobKeys } from '../jobs/queries';
import { activityKeys } from './queries';

/** An undo writes POIs, their reports and (an import's) categories, and adds to the activity list. */
export const changedByUndo = (i: { clientId: string }) => [poiKeys.all(i.clientId), reportKeys.open(i.clientId), activityKeys.all(i.clientId), categoryKeys.list(i.clientId)];

export const useUndoChange = () => useOperation('changes.undo', changedByUndo);

/** Starts the undo of an import, a job: what it changes is read again when it ends (UndoImport), and the client's jobs now. */
export const useUndoImport = () => useOperation('imports.undo', (i) => [jobKeys.ofClient(i.clientId)]);
