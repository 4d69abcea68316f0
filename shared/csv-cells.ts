/**
 * How a text cell is written to a spreadsheet's CSV and read back, in one place for both ways.
 *
 * A spreadsheet runs a cell as a formula when it starts with `=`, `+`, `-` or `@` (after any
 * leading spaces), or with a tab or carriage return: such a cell gets a leading apostrophe, shown
 * as typed and never evaluated. A cell that really starts with an apostrophe gets one too, so the
 * apostrophe the import takes off is always the guard's: every text reads back exactly as it was
 * written, `'-5 degrees` and `'=1+1` included.
 *
 * Only a file that says it was written this way is unguarded (its header has
 * FORMULA_GUARD_COLUMN, shared/import-columns.ts, or it is an older export: main/core/formats/csv.ts): a CSV for
 * programs has no guard, and there `'=1+1` is data. Here, in shared/, because the admin UI writes
 * an import's report as a CSV for a spreadsheet too.
 */
const NEEDS_GUARD = /^(?:\s*[=+\-@]|[\t\r]|')/;

export const guardCell = (text: string): string => (NEEDS_GUARD.test(text) ? `'${text}` : text);

export const unguardCell = (text: string): string => (text.startsWith("'") && NEEDS_GUARD.test(text.slice(1)) ? text.slice(1) : text);

/**
 * What csv-stringify must quote beyond its own rule (a delimiter, a quote, the record delimiter
 * CRLF): a bare line feed or carriage return inside a cell, which every RFC 4180 reader and every
 * spreadsheet takes for the end of the record when unquoted.
 */
export const QUOTE_ALSO = /[\r\n]/;

/** How csv-stringify writes every CSV of the project (an export, an import's report): CRLF between records, and QUOTE_ALSO quoted. */
export const CSV_WRITING = { record_delimiter: 'windows', quoted_match: QUOTE_ALSO } as const;
