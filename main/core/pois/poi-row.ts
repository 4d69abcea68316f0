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

const ROW_KEYS = ['id', 'uuid', 'client_id', ...POI_FIELDS.map((f) => f.column), 'category_ids', 'created_by', 'registered_at', 'updated_at'];
export const POI_COLUMNS = ROW_KEYS.join(', ');

/**
 * A row from the values a raw statement over POI_COLUMNS gives (`statement.raw()`), as one
 * object literal compiled once, as replies are (reply.ts): better-sqlite3 builds a row object
 * key by key through V8's API, which for these 21 columns costs as much again as reading them
 * (65 rows from cached pages: 0.46 ms this way against 0.88 ms; 0.23 against 0.50 in a second
 * run). The source holds only the column names, never data.
 */
export const poiRowOf = new Function('values', `return { ${ROW_KEYS.map((k, i) => `${JSON.stringify(k)}: values[${i}]`).join(', ')} };`) as (
  values: readonly unknown[],
) => PoiRow;

/** A POI's categories as its row keeps them: each once, in id order, so the same set given in another order is no change. */
export const categoryIds = (ids: readonly number[]): string => JSON.stringify([...new Set(ids)].sort((a, b) => a - b));

type FieldColumns = { [F in Field as F['column']]: ValueOf<F> };

/**
 * A POI's fields from loosely typed values (a tombstone in the change log, a row pulled from the
 * central): each text field a string or null, each number field a number or null, as the field
 * table declares them. A required field without a value is refused (the source is damaged).
 */
export function poiFields(valueOf: (column: string) => unknown): FieldColumns {
  const fields: Record<string, string | number | null> = {};
  for (const f of POI_FIELDS) {
    const v = valueOf(f.column);
    const typed = f.kind === 'text' ? (typeof v === 'string' ? v : null) : typeof v === 'number' ? v : null;
    if (typed === null && 'required' in f && f.required) throw new Error(`a POI without its ${f.column}`);
    fields[f.column] = typed;
  }
  // Each column was given its declared kind just above.
  return fields as FieldColumns;
}
