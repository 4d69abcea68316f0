import { POI_FIELDS } from './poi-fields.js';

/** What an import column feeds: a field of the POI (by wire name), its categories, or the POI it updates. */
export type Target = (typeof POI_FIELDS)[number]['wire'] | 'categories' | 'category_names' | 'id' | 'uuid';

/**
 * Column names an import understands, compared lower-cased and trimmed: the API's wire and reply
 * names (an export reads back as it was written), and the usual names for a position in
 * spreadsheets and GIS tools.
 */
const NAMES: ReadonlyArray<readonly [string, Target]> = [
  ...POI_FIELDS.flatMap((f) => [[f.wire, f.wire] as const, [f.reply, f.wire] as const]),
  ['lon', 'lng'],
  ['long', 'lng'],
  ['x', 'lng'],
  ['y', 'lat'],
  ['categories', 'categories'],
  ['category_ids', 'categories'],
  ['category_id', 'categories'],
  ['category_names', 'category_names'],
  // A spreadsheet's "category" column holds what people read: a name (a first user's header was ignored).
  ['category', 'category_names'],
  ['category_name', 'category_names'],
  ['id', 'id'],
  ['uuid', 'uuid'],
];
const BY_NAME = new Map<string, Target>(NAMES);

export function targetOf(column: string): Target | undefined {
  return BY_NAME.get(column.trim().toLowerCase());
}

/**
 * The last column of a CSV written for a spreadsheet, always empty: it says that the file's text
 * cells went through the formula guard (shared/csv-cells.ts), so that the import takes
 * the guard's apostrophes off that file's cells and off no other file's. A header row, unlike a
 * byte-order mark, survives the file being edited and saved again in a spreadsheet.
 */
export const FORMULA_GUARD_COLUMN = 'formula_guard';

export const isFormulaGuardColumn = (column: string): boolean => column.trim().toLowerCase() === FORMULA_GUARD_COLUMN;

/** The column → field mapping of a header, the columns it leaves aside, and whether it marks a spreadsheet's CSV (FORMULA_GUARD_COLUMN). */
export function mapHeader(header: readonly string[]): { mapping: Array<Target | undefined>; ignored: string[]; formulaGuard: boolean } {
  const seen = new Set<Target>();
  const mapping = header.map((column) => {
    const target = targetOf(column);
    // The first column for a field wins (`lat` and `latitude` both present: `lat`).
    if (target === undefined || seen.has(target)) return undefined;
    seen.add(target);
    return target;
  });
  return {
    mapping,
    ignored: header.filter((column, i) => mapping[i] === undefined && !isFormulaGuardColumn(column)),
    formulaGuard: header.some(isFormulaGuardColumn),
  };
}
