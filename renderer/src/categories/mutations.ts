import { useOperation } from '../operation';
import { poiKeys } from '../pois/queries';
import { categoryKeys } from './queries';

/** What a category change makes stale: the list, and every POI view that shows categories. */
const changed = (i: { clientId: string }) => [categoryKeys.list(i.clientId), poiKeys.all(i.clientId)];

export const useAddCategory = () => useOperation('categories.add', changed, ['desc']);

export const useRenameCategory = () => useOperation('categories.update', changed, ['desc']);

export const useDeleteCategory = () => useOperation('categories.delete', changed);
