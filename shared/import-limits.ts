/**
 * How much of an imported file is held in memory at once, declared once: a file of any size
 * imports, but one record of it is read whole before it is checked, so a record has a ceiling.
 * Sizes count characters (a byte each in ASCII), as the readers see the text.
 */

/**
 * A CSV record (its bytes, line breaks inside quoted cells included) longer than this fails the
 * import: a 1 MB line is no POI, and past it the parser cannot know where the next record starts.
 * The parser bounds each cell by it, main/core/formats/csv-record-bound.ts the whole record (a
 * thousand cells just under it would otherwise be held whole).
 */
export const MAX_RECORD_BYTES = 1_000_000;

/**
 * A GeoJSON feature longer than this is refused and the import goes on with the next one: a
 * feature is put together whole before it is checked, so a 200 MB string in one would hold
 * 200 MB. Counted as the feature's compact JSON (as JSON.stringify writes it): whitespace
 * between tokens does not count, so pretty-printing a file changes nothing. Its keys, strings
 * and numbers count within it, so none of them needs a cap of its own.
 */
export const MAX_FEATURE_BYTES = 1_000_000;

/**
 * A GeoJSON feature nested deeper than this (objects and arrays, the feature itself being 1) is
 * refused and the import goes on: what reads a value back (JSON.stringify of a property) recurses
 * once per level, and 200,000 levels overflow the stack. A MultiPolygon feature is 6 deep.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * The largest file an upload may send to be imported: the file is written to the data folder as
 * it arrives and read from there row by row, so memory is not the bound; the disk is, and a
 * POI file past 4 GiB is more likely a mistake than data (35 million rows of a typical export).
 */
export const MAX_IMPORT_FILE_BYTES = 4 * 1024 ** 3;

/**
 * The most bytes of a file an import's reader takes in one turn of the event loop
 * (main/core/imports/records.ts cuts bigger chunks; the GeoJSON reader hands the parser no more
 * at a time, so the tokens of one piece are all that wait in memory).
 */
export const IMPORT_SLICE_BYTES = 16 * 1024;
