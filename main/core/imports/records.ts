import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ImportFormat } from '../../../shared/file-formats.js';
import { IMPORT_SLICE_BYTES } from '../../../shared/import-limits.js';
import { readerOf, type ImportRecord } from '../formats/index.js';

export type { ImportRecord };

/**
 * A file is read 64 KiB at a time, but a caller may hand a whole file over as one Buffer, and a
 * parser takes what it is given in one stretch (2.3 MB of CSV held the loop for 1.8 s): chunks
 * above IMPORT_SLICE_BYTES are cut, a turn each.
 */
async function* inSlices(source: Readable): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    for (let at = 0; at < bytes.length; at += IMPORT_SLICE_BYTES) {
      yield bytes.subarray(at, at + IMPORT_SLICE_BYTES);
      if (at + IMPORT_SLICE_BYTES < bytes.length) await nextTurn();
    }
  }
}

/** A file's records in the given format, by that format's reader (main/core/formats/). */
export function importRecords(source: Readable, format: ImportFormat, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  const sliced = Readable.from(inSlices(source), { objectMode: false });
  // The source's errors (a drive gone, a directory given as the file, a Cancel destroying it) end
  // this copy too; the importer hears them on the source itself (poi-import.ts) and stops there.
  // Unheard here they would end the process.
  sliced.on('error', () => undefined);
  return readerOf(format)(sliced, onHeader);
}
