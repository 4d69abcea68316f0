import StreamJson from 'stream-json';
import type { Readable } from 'node:stream';
import { targetOf } from '../../../shared/import-columns.js';
import { IMPORT_SLICE_BYTES, MAX_FEATURE_BYTES, MAX_JSON_DEPTH } from '../../../shared/import-limits.js';
import { ServiceError } from '../errors.js';
import { splitCategoryNames } from './category-names.js';
import type { ImportRecord } from './format.js';
import { Utf8Check, type Utf8Piece } from './utf8.js';

/**
 * A token of stream-json's parser with packing off: keys, strings and numbers come in pieces
 * (`stringChunk`, keys' included, and `numberChunk`), so that no value is ever held whole unless
 * this reader keeps it.
 */
interface Token {
  name: string;
  value?: unknown;
}

/** The tokens a value starts with: what, at the top of `features`, starts a feature. */
const VALUE_STARTS = new Set(['startObject', 'startArray', 'startString', 'startNumber', 'nullValue', 'trueValue', 'falseValue']);

/** Characters JSON.stringify writes as two (a backslash and a letter); the other control characters take six (\u00XX). */
const SHORT_ESCAPES = new Set(['"', '\\', '\b', '\f', '\n', '\r', '\t']);

/**
 * A piece of a string as JSON.stringify writes it, so that a feature's size does not depend on
 * how its file escapes characters: the parser hands each escape over as a piece of one character,
 * and a longer piece never holds a character to escape.
 */
const jsonLength = (piece: string): number => (piece.length !== 1 ? piece.length : SHORT_ESCAPES.has(piece) ? 2 : piece < ' ' ? 6 : 1);

const pieceOf = (token: Token): string => (typeof token.value === 'string' ? token.value : '');

/** An object or array of a feature being put together, the key its next value goes under, and how many entries it has. */
interface Frame {
  holder: Record<string, unknown> | unknown[];
  key: string;
  entries: number;
}

/**
 * One element of `features`, put together from its tokens on a stack of its own (no recursion,
 * whatever its depth), and dropped as soon as it breaks a limit: its remaining tokens are then
 * only counted through to its end, so a refused feature costs no memory however large it is.
 */
class FeatureBuilder {
  private readonly frames: Frame[] = [];
  /** Objects and arrays open, the feature's own included. */
  private depth = 0;
  /** Its compact JSON text so far, in characters. */
  private size = 0;
  /** The key, string or number being read. */
  private text = '';
  value: unknown;
  /** Why it is refused (a limit it broke, or bytes that are not UTF-8), once it is. */
  over: 'size' | 'depth' | 'utf8' | undefined;

  /** Takes the feature's next token; true once the feature is complete. */
  take(token: Token): boolean {
    switch (token.name) {
      case 'startObject':
      case 'startArray': {
        this.depth++;
        if (this.over) return false;
        if (this.depth > MAX_JSON_DEPTH) {
          this.drop('depth');
          return false;
        }
        const holder = token.name === 'startObject' ? {} : [];
        this.grow(this.comma() + 1);
        this.place(holder);
        this.frames.push({ holder, key: '', entries: 0 });
        return false;
      }
      case 'endObject':
      case 'endArray':
        this.depth--;
        if (!this.over) {
          this.frames.pop();
          this.grow(1);
        }
        return this.depth === 0;
      case 'startKey': {
        const frame = this.frames.at(-1);
        if (this.over || !frame) return false;
        // Its quotes and colon, and the comma before it.
        this.grow((frame.entries++ > 0 ? 1 : 0) + 3);
        this.text = '';
        return false;
      }
      case 'endKey': {
        const frame = this.frames.at(-1);
        if (!this.over && frame) frame.key = this.text;
        this.text = '';
        return false;
      }
      case 'startString':
      case 'startNumber':
        if (!this.over) this.grow(this.comma() + (token.name === 'startString' ? 2 : 0));
        this.text = '';
        return false;
      case 'stringChunk':
      case 'numberChunk': {
        if (this.over) return false;
        const piece = pieceOf(token);
        this.grow(token.name === 'stringChunk' ? jsonLength(piece) : piece.length);
        if (!this.over) this.text += piece;
        return false;
      }
      case 'endString':
      case 'endNumber':
        if (!this.over) this.place(token.name === 'endString' ? this.text : Number(this.text));
        this.text = '';
        return this.depth === 0;
      case 'nullValue':
      case 'trueValue':
      case 'falseValue':
        if (!this.over) {
          this.grow(this.comma() + (token.name === 'falseValue' ? 5 : 4));
          this.place(token.name === 'nullValue' ? null : token.name === 'trueValue');
        }
        return this.depth === 0;
      default:
        return false;
    }
  }

  /** The comma before a value in an array (an object's is counted with the key). */
  private comma(): number {
    const frame = this.frames.at(-1);
    return frame && Array.isArray(frame.holder) && frame.entries++ > 0 ? 1 : 0;
  }

  private grow(characters: number): void {
    this.size += characters;
    if (this.size > MAX_FEATURE_BYTES) this.drop('size');
  }

  /** Invalid UTF-8 in its bytes: no text of it is read. */
  invalid(): void {
    this.drop('utf8');
  }

  private drop(limit: 'size' | 'depth' | 'utf8'): void {
    this.over ??= limit;
    this.frames.length = 0;
    this.value = undefined;
    this.text = '';
  }

  private place(value: unknown): void {
    const frame = this.frames.at(-1);
    if (!frame) this.value = value;
    else if (Array.isArray(frame.holder)) frame.holder.push(value);
    // An own property, as JSON.parse makes it: assigned, "__proto__" would replace the prototype.
    else if (frame.key === '__proto__') Object.defineProperty(frame.holder, frame.key, { value, enumerable: true, writable: true, configurable: true });
    else frame.holder[frame.key] = value;
  }
}

/**
 * The document around the features: its depth, and the key just read at the top, to find the
 * `features` array. Nothing outside it is kept: a key at the top is read only as far as telling
 * whether it is "features", other values are walked through by their depth.
 */
class CollectionWalker {
  private depth = 0;
  /** A key at the top being read, cut short past the length of "features". */
  private topKey: string | undefined;
  /** The key just read at the top was "features": the value coming is the one to read. */
  private featuresKey = false;
  private inFeatures = false;
  private feature: FeatureBuilder | undefined;
  /** A `features` array was seen: the file is a FeatureCollection. */
  found = false;
  /** Features completed so far. */
  count = 0;

  /** Takes the document's next token; returns the feature it completes, if it completes one. */
  take(token: Token): FeatureBuilder | undefined {
    if (!this.feature && this.inFeatures && VALUE_STARTS.has(token.name)) this.feature = new FeatureBuilder();
    if (this.feature) {
      if (!this.feature.take(token)) return undefined;
      const done = this.feature;
      this.feature = undefined;
      this.count++;
      return done;
    }
    const afterFeaturesKey = this.featuresKey;
    this.featuresKey = false;
    switch (token.name) {
      case 'startArray':
        this.depth++;
        if (afterFeaturesKey && this.depth === 2) this.inFeatures = this.found = true;
        break;
      case 'startObject':
        this.depth++;
        break;
      case 'endObject':
      case 'endArray':
        // Inside `features` every value is a feature: the only end seen there is the array's own.
        this.inFeatures = false;
        this.depth--;
        break;
      case 'startKey':
        if (this.depth === 1) this.topKey = '';
        break;
      case 'stringChunk':
        if (this.topKey !== undefined && this.topKey.length <= 'features'.length) this.topKey += pieceOf(token);
        break;
      case 'endKey':
        this.featuresKey = this.topKey === 'features';
        this.topKey = undefined;
        break;
    }
    return undefined;
  }

  /**
   * Invalid UTF-8 just after the tokens taken so far: the feature being read is refused; outside
   * a feature it is in nothing the import reads.
   */
  invalid(): void {
    this.feature?.invalid();
  }
}

const { parser } = StreamJson;

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** U+FFFD, what the parser's own decoder would have made of invalid bytes. */
const REPLACEMENT = Buffer.from([0xef, 0xbf, 0xbd]);

/**
 * A FeatureCollection's features one by one, as the file streams in, so a file of any size
 * imports in bounded memory: the file is read only as the importer asks for the next feature,
 * each feature is put together on its own within MAX_FEATURE_BYTES and MAX_JSON_DEPTH, and
 * anything outside `features` is never put together. A feature over a limit, or holding bytes
 * that are not UTF-8, is a refused row, not a broken file; a file that breaks off keeps the
 * features before it.
 *
 * The bytes are checked for UTF-8 here rather than by the parser, whose decoder would turn an
 * invalid byte into U+FFFD, a character a valid file may hold too. To know which feature invalid
 * bytes are in, the parser is driven by hand: the valid bytes before them are written to it and
 * every token they make is taken, then the walker is told; a parser piped to would run ahead.
 * The parser then reads U+FFFD in their place, as its decoder would have: outside a string they
 * still break the JSON, inside one outside the features they are in nothing the import reads.
 */
export async function* geojsonRecords(source: Readable, onHeader: (ignored: string[]) => void): AsyncGenerator<ImportRecord> {
  const tokens = parser({ packKeys: false, packStrings: false, packNumbers: false });
  let broken: Error | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const poke = (): void => {
    wake?.();
    wake = undefined;
  };
  // Read, not listened to with 'data': the tokens parsed before an error stay readable after it
  // (an async iterator would drop them).
  tokens.on('readable', poke);
  tokens.on('end', () => {
    ended = true;
    poke();
  });
  tokens.on('error', (error: Error) => {
    broken = error;
    poke();
  });
  const walker = new CollectionWalker();
  const ignored = new Set<string>();
  /** The features the tokens parsed so far complete; then the parser's error, if it has failed. */
  function* parsed(): Generator<ImportRecord> {
    for (let token: Token | null = tokens.read(); token !== null; token = tokens.read()) {
      const feature = walker.take(token);
      if (feature) yield recordOf(feature, walker.count, ignored);
    }
    const error = broken ?? tokens.errored;
    if (error) throw new ServiceError('INVALID_PARAMETER', `the file is not valid JSON: ${error.message}`, 'file');
  }
  let atStart = true;
  /** The features that pieces of the file complete, each piece's tokens taken before the next is written. */
  function* written(pieces: Utf8Piece[]): Generator<ImportRecord> {
    for (const piece of pieces) {
      if ('invalidAt' in piece) {
        walker.invalid();
        tokens.write(REPLACEMENT);
      }
      // A byte-order mark at the very start is no JSON: spreadsheet programs write one.
      else tokens.write(atStart && piece.text.subarray(0, 3).equals(BOM) ? piece.text.subarray(3) : piece.text);
      atStart = false;
      yield* parsed();
    }
  }
  const utf8 = new Utf8Check();
  let finished = false;
  try {
    for await (const chunk of source) {
      const bytes: Buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      for (let at = 0; at < bytes.length; at += IMPORT_SLICE_BYTES) yield* written(utf8.push(bytes.subarray(at, at + IMPORT_SLICE_BYTES)));
    }
    yield* written(utf8.end());
    tokens.end();
    for (;;) {
      yield* parsed();
      if (ended) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    if (!walker.found) throw new ServiceError('INVALID_PARAMETER', 'the file is not a GeoJSON FeatureCollection', 'file');
    finished = true;
  } finally {
    // Broken, not a collection, or let go before its end: the rest of the file is not wanted.
    if (!finished) {
      source.destroy();
      tokens.destroy();
    }
  }
  onHeader([...ignored]);
}

/** A feature completed, as the record it is (the `n`th of the file). */
function recordOf(feature: FeatureBuilder, n: number, ignored: Set<string>): ImportRecord {
  const where = `feature ${n}`;
  switch (feature.over) {
    case 'size':
      return { where, values: {}, refusal: { cause: 'too-large', limit: MAX_FEATURE_BYTES } };
    case 'depth':
      return { where, values: {}, refusal: { cause: 'too-deep', limit: MAX_JSON_DEPTH } };
    case 'utf8':
      return { where, values: {}, refusal: { cause: 'not-utf8' } };
    case undefined:
      return geojsonRecord(n - 1, feature.value, ignored);
  }
}

/** One feature as the fields it feeds: its properties by the API's names, its Point as the position. */
function geojsonRecord(index: number, feature: unknown, ignored: Set<string>): ImportRecord {
  const values: ImportRecord['values'] = {};
  const f = (typeof feature === 'object' && feature !== null ? feature : {}) as { geometry?: { type?: unknown; coordinates?: unknown }; properties?: unknown; id?: unknown };
  const where = `feature ${index + 1}`;
  // Told for what it is, not as the fields it leaves missing.
  if (f.geometry != null && f.geometry.type !== 'Point') return { where, values, refusal: { cause: 'not-a-point', geometry: typeof f.geometry.type === 'string' ? f.geometry.type.slice(0, 40) : 'geometry of no type' } };
  if (typeof f.properties !== 'object' || f.properties === null || Object.keys(f.properties).length === 0) return { where, values, refusal: { cause: 'no-properties' } };
  const properties = f.properties as Record<string, unknown>;
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
    } else if (target === 'category_names' && typeof value === 'string' && value !== '') values.category_names = splitCategoryNames(value);
    else values[target] = typeof value === 'number' || typeof value === 'string' ? value : value === null ? null : JSON.stringify(value);
  }
  // The geometry is the position: a Point's [lng, lat].
  if (f.geometry?.type === 'Point' && Array.isArray(f.geometry.coordinates)) {
    const [x, y] = f.geometry.coordinates as unknown[];
    if (typeof x === 'number' && typeof y === 'number') {
      values.lng = x;
      values.lat = y;
    }
  }
  return { where, values };
}
