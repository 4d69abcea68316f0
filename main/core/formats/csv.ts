import { parse } from 'csv-parse';
import { stringify } from 'csv-stringify/sync';
import { Transform, type Readable } from 'node:stream';
import type { ExportOptions } from '../../../shared/file-formats.js';
import { FORMULA_GUARD_COLUMN, mapHeader, type Target } from '../../../shared/import-columns.js';
import { MAX_RECORD_BYTES } from '../../../shared/import-limits.js';
import { boundRecords } from './csv-record-bound.js';
import { POI_FIELDS } from '../../../shared/poi-fields.js';
import type { PoiReply } from '../../../shared/wire.js';
import { ServiceError } from '../errors.js';
import { joinCategoryNames, splitCategoryNames } from './category-names.js';
import { CSV_WRITING, guardCell, unguardCell } from '../../../shared/csv-cells.js';
import type { FormatReader, FormatWriter, ImportRecord } from './format.js';
import { Utf8Check } from './utf8.js';

/** The CSV's columns: the API's reply names, with categories as ids and as names. */
export const CSV_COLUMNS = ['id', 'uuid', ...POI_FIELDS.map((f) => f.reply), 'categories', 'category_names', 'registertime', 'last_update'] as const;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface Parsed {
  record: string[];
  info: { lines: number; bytes: number };
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

/**
 * Where the stream's invalid UTF-8 is, by byte offset, found as the bytes pass on to the parser
 * (which would decode them into U+FFFD, a character a valid file may hold too), and whether the
 * stream starts with a byte-order mark.
 */
class Utf8Offsets {
  private readonly check = new Utf8Check();
  private readonly offsets: number[] = [];
  private next = 0;
  private lead = Buffer.alloc(0);

  readonly stream = new Transform({
    transform: (chunk: Buffer, _encoding, done) => {
      if (this.lead.length < 3) this.lead = Buffer.concat([this.lead, chunk.subarray(0, 3 - this.lead.length)]);
      for (const piece of this.check.push(chunk)) if ('invalidAt' in piece) this.offsets.push(piece.invalidAt);
      done(null, chunk);
    },
    flush: (done) => {
      for (const piece of this.check.end()) if ('invalidAt' in piece) this.offsets.push(piece.invalidAt);
      done();
    },
  });

  get bom(): boolean {
    return this.lead.equals(BOM);
  }

  /** Whether the record ending at offset `end` holds invalid bytes (the records before it have taken theirs). */
  before(end: number): boolean {
    let found = false;
    while (this.next < this.offsets.length && this.offsets[this.next]! < end) {
      found = true;
      this.next++;
    }
    if (this.next > 1_024) {
      this.offsets.splice(0, this.next);
      this.next = 0;
    }
    return found;
  }
}

/**
 * An export written before FORMULA_GUARD_COLUMN existed, whose cells were guarded: a byte-order
 * mark, then exactly the export's columns. A CSV for programs never starts with a byte-order mark.
 */
const olderSpreadsheetExport = (bom: boolean, header: readonly string[]): boolean => bom && header.length === CSV_COLUMNS.length && CSV_COLUMNS.every((c, i) => header[i] === c);

/**
 * A CSV's rows one by one. A row holding bytes that are not UTF-8 is refused with its line, the
 * others go on. The guard's apostrophes come off only in a CSV written for a spreadsheet.
 */
const read: FormatReader = async function* (source: Readable, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  const utf8 = new Utf8Offsets();
  const bound = boundRecords();
  const parser = source.pipe(bound).pipe(utf8.stream).pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, max_record_size: MAX_RECORD_BYTES, info: true }));
  // .pipe() passes no error on: the record bound's reaches the parser, which stops the import there.
  bound.on('error', (error) => parser.destroy(error));
  let header: { mapping: Array<Target | undefined>; unguard: boolean } | undefined;
  try {
    for await (const { record, info } of parsedThenError(parser)) {
      const invalid = utf8.before(info.bytes);
      if (header === undefined) {
        // A header with bytes that are not UTF-8 is read all the same: a column it spoils is listed as ignored.
        const { mapping, ignored, formulaGuard } = mapHeader(record);
        header = { mapping, unguard: formulaGuard || olderSpreadsheetExport(utf8.bom, record) };
        onHeader(ignored);
        continue;
      }
      const where = `line ${info.lines}`;
      if (invalid) {
        yield { where, values: {}, refusal: { cause: 'not-utf8' } };
        continue;
      }
      const values: ImportRecord['values'] = {};
      const { mapping, unguard } = header;
      record.forEach((cell, i) => {
        const target = mapping[i];
        if (target === undefined) return;
        const text = unguard ? unguardCell(cell) : cell;
        values[target] = target === 'category_names' && text !== '' ? splitCategoryNames(text) : text;
      });
      yield { where, values };
    }
  } catch (error) {
    source.destroy();
    throw new ServiceError('INVALID_PARAMETER', `the CSV cannot be read past this point: ${(error as Error).message}`, 'file');
  }
};


/** A POI's cells; text through the formula guard when `guard`, numbers as numbers. */
function row(p: PoiReply, guard: boolean): string[] {
  const text = (v: string): string => (guard ? guardCell(v) : v);
  const cell = (v: unknown): string => (v === null || v === undefined ? '' : typeof v === 'number' ? String(v) : text(String(v)));
  const record: Record<(typeof CSV_COLUMNS)[number], string> = {
    id: String(p.id),
    uuid: p.uuid,
    ...(Object.fromEntries(POI_FIELDS.map((f) => [f.reply, cell(p[f.reply])])) as Record<(typeof POI_FIELDS)[number]['reply'], string>),
    categories: p.categories.map((c) => c.Id).join(';'),
    category_names: text(joinCategoryNames(p.categories.map((c) => c.Description))),
    registertime: p.registertime,
    last_update: p.last_update,
  };
  const cells = CSV_COLUMNS.map((c) => record[c]);
  return guard ? [...cells, ''] : cells;
}

/**
 * CRLF line ends and RFC 4180 quoting in both flavours. For a spreadsheet (the default): a
 * byte-order mark, so that spreadsheet programs read UTF-8, the formula guard, and the
 * FORMULA_GUARD_COLUMN that tells the import so. For a program: every cell as it is.
 */
const write: FormatWriter = async function* (pages: AsyncIterable<readonly PoiReply[]>, options: ExportOptions): AsyncGenerator<string> {
  const guard = options.csvFlavour !== 'plain';
  yield guard ? `\uFEFF${stringify([[...CSV_COLUMNS, FORMULA_GUARD_COLUMN]], CSV_WRITING)}` : stringify([[...CSV_COLUMNS]], CSV_WRITING);
  for await (const page of pages) yield stringify(page.map((p) => row(p, guard)), CSV_WRITING);
};

export const csv = { read, write };
