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
  created_by: string | null;
  registered_at: number;
  updated_at: number;
};

export const POI_COLUMNS = ['id', 'uuid', 'client_id', ...POI_FIELDS.map((f) => f.column), 'created_by', 'registered_at', 'updated_at'].join(', ');
