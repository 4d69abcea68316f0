import { POI_FIELDS, type PoiFieldKind } from '../../../shared/poi-fields.js';

type Field = (typeof POI_FIELDS)[number];
type ValueOf<F extends Field> = F['kind'] extends Exclude<PoiFieldKind, 'text'>
  ? F extends { required: true } ? number : number | null
  : F extends { required: true } ? string : string | null;

/** A row of `pois`, in the database's own column names: the field table's columns, and the row's own. */
export type PoiRow = { [F in Field as F['column']]: ValueOf<F> } & {
  id: number;
  uuid: string;
  client_id: string;
  /** The POI's category ids as JSON (see categoryIds); the database derives the links that filters search from it. */
  category_ids: string;
  created_by: string | null;
  registered_at: number;
  updated_at: number;
};

export const POI_COLUMNS = ['id', 'uuid', 'client_id', ...POI_FIELDS.map((f) => f.column), 'category_ids', 'created_by', 'registered_at', 'updated_at'].join(', ');

/** A POI's categories as its row keeps them: each once, in id order, so the same set given in another order is no change. */
export const categoryIds = (ids: readonly number[]): string => JSON.stringify([...new Set(ids)].sort((a, b) => a - b));
