import { parse } from 'csv-parse';
import type { Readable } from 'node:stream';
import type { ExportFormat } from '../../../shared/exports.js';
import { ServiceError } from '../errors.js';
import { mapHeader, type Target } from '../../../shared/import-columns.js';
import { MAX_RECORD_BYTES } from '../../../shared/import-limits.js';
import { unguardCell } from '../exports/csv-cells.js';
import { geojsonRecords } from './geojson-records.js';

/** One row of a CSV or one feature of a GeoJSON file, by the field it feeds, with where it came from. */
export interface ImportRecord {
  /** "line 12" or "feature 3": how a refusal names it. */
  where: string;
  /** Cells as read; GeoJSON's categories as the API replies them become a list of names. */
  values: Partial<Record<Target, string | number | null | string[]>>;
  /** Set when the record itself breaks a limit (a feature over its size, a string too long): the row is refused with this reason, and the import goes on. */
  refusal?: string;
}

interface Parsed {
  record: string[];
  info: { lines: number };
}

/**
 * The parser's records in order, and its error only after them: an async iterator over the
 * stream would drop the records already parsed when a later piece of the file turns out broken.
 * Paused while the importer is busy, so a large file is never held in memory.
 */
async function* parsedThenError(parser: ReturnType<typeof parse>): AsyncGenerator<Parsed> {
  const queue: Parsed[] = [];
  let failure: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    wake?.();
    wake = undefined;
  };
  parser.on('data', (r: Parsed) => {
    queue.push(r);
    if (queue.length >= 1_000) parser.pause();
    poke();
  });
  parser.on('error', (e: Error) => {
    failure = e;
    poke();
  });
  parser.on('end', () => {
    ended = true;
    poke();
  });
  for (;;) {
    const next = queue.shift();
    if (next) {
      if (queue.length < 100 && parser.isPaused()) parser.resume();
      yield next;
      continue;
    }
    if (failure) throw failure;
    if (ended) return;
    if (parser.isPaused()) parser.resume();
    await new Promise<void>((resolve) => (wake = resolve));
  }
}

async function* csvRecords(source: Readable, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  const parser = source.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES, info: true }));
  let mapping: Array<Target | undefined> | undefined;
  try {
    for await (const { record, info } of parsedThenError(parser)) {
      if (mapping === undefined) {
        const header = mapHeader(record);
        mapping = header.mapping;
        onHeader(header.ignored);
        continue;
      }
      const values: ImportRecord['values'] = {};
      record.forEach((cell, i) => {
        const target = mapping![i];
        // The apostrophe of the export's formula guard comes off (a CSV's cells only: GeoJSON has none).
        if (target !== undefined) values[target] = unguardCell(cell);
      });
      yield { where: `line ${info.lines}`, values };
    }
  } catch (error) {
    source.destroy();
    throw new ServiceError('INVALID_PARAMETER', `the CSV cannot be read past this point: ${(error as Error).message}`, 'file');
  }
}

export function importRecords(source: Readable, format: ExportFormat, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  return format === 'csv' ? csvRecords(source, onHeader) : geojsonRecords(source, onHeader);
}
