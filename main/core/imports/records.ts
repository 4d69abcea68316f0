import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ImportFormat } from '../../../shared/file-formats.js';
import { readerOf, type ImportRecord } from '../formats/index.js';

export type { ImportRecord };

/**
 * The most bytes a reader parses in one turn of the event loop. A file is read 64 KiB at a time,
 * but a caller may hand a whole file over as one Buffer, and a parser takes what it is given in
 * one stretch (a 500 KB CSV held the loop for 200 ms): larger chunks are cut, a turn each.
 */
export const IMPORT_SLICE_BYTES = 16 * 1024;

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
  return readerOf(format)(Readable.from(inSlices(source), { objectMode: false }), onHeader);
}
