import type { Readable } from 'node:stream';
import type { ExportOptions } from '../../../shared/file-formats.js';
import type { Target } from '../../../shared/import-columns.js';
import type { Refusal } from '../../../shared/import-words.js';
import type { PoiReply } from '../../../shared/wire.js';

/** One row of a CSV or one feature of a GeoJSON file, by the field it feeds, with where it came from. */
export interface ImportRecord {
  /** "line 12" or "feature 3": how a refusal names it. */
  where: string;
  /** Cells as read; category names (GeoJSON's categories as the API replies them, a CSV's `category_names`) become a list. */
  values: Partial<Record<Target, string | number | null | string[]>>;
  /** Set when the record itself cannot be taken (a feature over its size, bytes that are not UTF-8, a geometry other than a Point): the row is refused for it, and the import goes on. */
  refusal?: Refusal;
}

/**
 * A file's records one by one as it streams in, never the whole file in memory; `onHeader` is
 * told the columns or properties no field takes. A file that cannot be read past some point
 * throws a ServiceError there, after the records before it.
 */
export type FormatReader = (source: Readable, onHeader: (ignored: string[]) => void) => AsyncGenerator<ImportRecord>;

/** A client's POIs, given page by page, as the file's text in chunks: one page in memory at a time. */
export type FormatWriter = (pages: AsyncIterable<readonly PoiReply[]>, options: ExportOptions) => AsyncGenerator<string>;
