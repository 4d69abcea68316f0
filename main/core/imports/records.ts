import { parse } from 'csv-parse';
import StreamJson from 'stream-json';
import Pick from 'stream-json/filters/Pick.js';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import { Transform, type Readable } from 'node:stream';
import type { ExportFormat } from '../../../shared/exports.js';
import { ServiceError } from '../errors.js';
import { mapHeader, targetOf, type Target } from '../../../shared/import-columns.js';
import { unguardCell } from '../exports/csv-cells.js';

/** One row of a CSV or one feature of a GeoJSON file, by the field it feeds, with where it came from. */
export interface ImportRecord {
  /** "line 12" or "feature 3": how a refusal names it. */
  where: string;
  /** Cells as read; GeoJSON's categories as the API replies them become a list of names. */
  values: Partial<Record<Target, string | number | null | string[]>>;
  /** Set when the record itself breaks a limit (a feature over its size, a string too long): the row is refused with this reason, and the import goes on. */
  refusal?: string;
}

/** A CSV record longer than this is refused (a 100 MB line is not a POI), and the import stops there. */
export const MAX_RECORD_BYTES = 1_000_000;

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

/** What a FeatureCollection's `features` stream yields: each feature, with its place in the array. */
const { parser } = StreamJson;
const { pick } = Pick;
const { streamArray } = StreamArray;

interface Item {
  key: number;
  value: unknown;
}

/**
 * A FeatureCollection's features one by one, as the file streams in (stream-json), so a file of
 * any size imports in bounded memory; a file that breaks off keeps what came before it.
 */
async function* geojsonRecords(source: Readable, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  const tokens = source.pipe(withoutBom()).pipe(parser());
  const features = tokens.pipe(pick({ filter: 'features' }));
  let isCollection = false;
  features.on('data', (token: { name: string }) => {
    if (token.name === 'startArray') isCollection = true;
  });
  const items = features.pipe(streamArray());
  // A parse error surfaces on the parser, not downstream: the features read so far still go in,
  // then the import stops there, saying why.
  let broken: Error | undefined;
  tokens.on('error', (error: Error) => {
    broken = error;
    source.destroy();
    features.end();
  });
  const ignored = new Set<string>();
  for await (const item of items as AsyncIterable<Item>) yield geojsonRecord(item.key, item.value, ignored);
  if (broken) throw new ServiceError('INVALID_PARAMETER', `the file is not valid JSON: ${broken.message}`, 'file');
  if (!isCollection) throw new ServiceError('INVALID_PARAMETER', 'the file is not a GeoJSON FeatureCollection', 'file');
  onHeader([...ignored]);
}

/** A byte-order mark at the very start is no JSON: spreadsheet programs write one. */
function withoutBom(): Transform {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const bom = first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf;
      first = false;
      done(null, bom ? chunk.subarray(3) : chunk);
    },
  });
}

/** One feature as the fields it feeds: its properties by the API's names, its Point as the position. */
function geojsonRecord(index: number, feature: unknown, ignored: Set<string>): ImportRecord {
  const values: ImportRecord['values'] = {};
  const f = (typeof feature === 'object' && feature !== null ? feature : {}) as { geometry?: { type?: unknown; coordinates?: unknown }; properties?: unknown; id?: unknown };
  const properties = typeof f.properties === 'object' && f.properties !== null ? (f.properties as Record<string, unknown>) : {};
  for (const [key, value] of Object.entries(properties)) {
    const target = targetOf(key);
    if (target === undefined || target in values) {
      ignored.add(key);
      continue;
    }
    // Categories as the API replies them ({Id, Description}): by name, which travels between
    // databases (a client's own categories have other ids elsewhere); a list of ids as ids.
    if (target === 'categories' && Array.isArray(value)) {
      const described = value.every((c: unknown) => typeof c === 'object' && c !== null && 'Description' in c);
      if (described) values.category_names = value.map((c: { Description: unknown }) => String(c.Description));
      else values.categories = value.map(String).join(';');
    } else values[target] = typeof value === 'number' || typeof value === 'string' ? value : value === null ? null : JSON.stringify(value);
  }
  // The geometry is the position: a Point's [lng, lat].
  if (f.geometry?.type === 'Point' && Array.isArray(f.geometry.coordinates)) {
    const [x, y] = f.geometry.coordinates as unknown[];
    if (typeof x === 'number' && typeof y === 'number') {
      values.lng = x;
      values.lat = y;
    }
  } else if (f.geometry != null) values.lat = 'a geometry other than a Point';
  return { where: `feature ${index + 1}`, values };
}

export function importRecords(source: Readable, format: ExportFormat, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  return format === 'csv' ? csvRecords(source, onHeader) : geojsonRecords(source, onHeader);
}
