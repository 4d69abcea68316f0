import type { ExportFormat, FILE_FORMATS, FormatId, ImportFormat } from '../../../shared/file-formats.js';
import { csv } from './csv.js';
import type { FormatReader, FormatWriter } from './format.js';
import { geojson } from './geojson.js';

export type { ImportRecord } from './format.js';

/** What a format's module must have: a reader when the format imports, a writer when it exports (shared/file-formats.ts). */
type Sides<K extends FormatId> = ((typeof FILE_FORMATS)[K]['import'] extends true ? { read: FormatReader } : unknown) &
  ((typeof FILE_FORMATS)[K]['export'] extends true ? { write: FormatWriter } : unknown);

/**
 * Each format's reader and writer, by its id. Exhaustive: a format declared in
 * shared/file-formats.ts without its module here does not compile.
 */
const FORMATS = { csv, geojson } satisfies { [K in FormatId]: Sides<K> };

export const readerOf = (format: ImportFormat): FormatReader => FORMATS[format].read;

export const writerOf = (format: ExportFormat): FormatWriter => FORMATS[format].write;
