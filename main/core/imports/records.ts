import type { Readable } from 'node:stream';
import type { ImportFormat } from '../../../shared/file-formats.js';
import { readerOf, type ImportRecord } from '../formats/index.js';

export type { ImportRecord };

/** A file's records in the given format, by that format's reader (main/core/formats/). */
export function importRecords(source: Readable, format: ImportFormat, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  return readerOf(format)(source, onHeader);
}
