import { MAX_TOTAL } from '../../shared/schemas/pois.js';
import { ServiceError, invalid } from '../core/errors.js';
import type { Principal } from '../core/tokens/tokens.js';

/** The most ids one list parameter carries (`pois`, `categories`): MAX_TOTAL, the most one reply holds. */
const MAX_LISTED_IDS = MAX_TOTAL;

export type Entries = Array<[string, string]>;

/** Names old clients use for the same parameter; the value is what the core knows it as. */
const ALIASES: ReadonlyMap<string, string> = new Map([['oauth_token', 'access_token']]);

const MAX_PARAMETERS = 200;

/**
 * The request's parameters, from the query string and the body together, with names matched
 * case-insensitively. A name given twice with different values is refused rather than guessed.
 */
export class WireParams {
  /** Set by the listener when it has already resolved the request's access_token. */
  principal: Principal | undefined;

  private constructor(private readonly values: ReadonlyMap<string, string>) {}

  static from(...sources: Entries[]): WireParams {
    const values = new Map<string, string>();
    let count = 0;
    for (const source of sources) {
      for (const [rawName, value] of source) {
        if (++count > MAX_PARAMETERS) {
          throw new ServiceError('MALFORMED_REQUEST', `more than ${MAX_PARAMETERS} parameters`);
        }
        // JSON escapes can carry lone surrogates, which no UTF-8 store can keep.
        if (!rawName.isWellFormed() || !value.isWellFormed()) {
          throw new ServiceError('MALFORMED_REQUEST', 'a parameter is not valid Unicode (a lone surrogate)');
        }
        const lower = rawName.toLowerCase();
        const name = ALIASES.get(lower) ?? lower;
        const previous = values.get(name);
        if (previous !== undefined && previous !== value) {
          throw new ServiceError('AMBIGUOUS_PARAMETER', `${name} is given more than once with different values`, name);
        }
        values.set(name, value);
      }
    }
    return new WireParams(values);
  }

  /** undefined when absent; '' when present and empty (which means null). */
  raw(name: string): string | undefined {
    return this.values.get(name);
  }

  /** Absent and empty alike: for credentials and required values where empty is no value. */
  text(name: string): string | undefined {
    const value = this.values.get(name);
    return value === '' ? undefined : value;
  }

  /** undefined absent, null empty, else the text. */
  nullableText(name: string): string | null | undefined {
    const value = this.values.get(name);
    return value === '' ? null : value;
  }

  /** undefined absent, null empty, else a finite decimal (`40.0`, `-3.70`, `1.0E-4`). */
  nullableDecimal(name: string): number | null | undefined {
    const value = this.values.get(name);
    if (value === undefined) return undefined;
    if (value === '') return null;
    return parseDecimal(name, value);
  }

  /** An empty value counts as absent: for options like expiresin, count and page. */
  decimal(name: string): number | undefined {
    const value = this.nullableDecimal(name);
    return value === null ? undefined : value;
  }

  integer(name: string): number | undefined {
    const text = this.text(name);
    if (text === undefined) return undefined;
    const value = Number(text.trim());
    if (!DECIMAL.test(text.trim()) || !Number.isSafeInteger(value)) throw invalid(name, 'must be an integer');
    return value;
  }

  /**
   * `1,2, 3`: undefined absent, null empty, else the ids (each a positive integer). Longer lists
   * are refused before any id is parsed; the operation's schema may bound them tighter.
   */
  idList(name: string): number[] | null | undefined {
    const value = this.values.get(name);
    if (value === undefined) return undefined;
    if (value.trim() === '') return null;
    const parts = value.split(',');
    if (parts.length > MAX_LISTED_IDS) throw invalid(name, `must list at most ${MAX_LISTED_IDS} ids`);
    return parts.map((part) => {
      const id = parseDecimal(name, part);
      if (!Number.isSafeInteger(id) || id <= 0) throw invalid(name, 'must be positive integer ids separated by commas');
      return id;
    });
  }

  /** `true` / `false` in any case; empty counts as absent. */
  boolean(name: string): boolean | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const lower = value.toLowerCase();
    if (lower === 'true') return true;
    if (lower === 'false') return false;
    throw invalid(name, 'must be true or false');
  }
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseDecimal(name: string, text: string): number {
  const trimmed = text.trim();
  if (trimmed.length > 64 || !DECIMAL.test(trimmed)) throw invalid(name, 'must be a decimal number');
  const n = Number(trimmed);
  if (!Number.isFinite(n)) throw invalid(name, 'is out of range');
  return n;
}

/**
 * `application/x-www-form-urlencoded` (also the query string): `+` is a space and UTF-8 is
 * percent-encoded. A malformed escape or invalid UTF-8 is refused, not silently replaced.
 */
export function parseUrlEncoded(text: string): Entries {
  const entries: Entries = [];
  if (text === '') return entries;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodeComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = eq === -1 ? '' : decodeComponent(pair.slice(eq + 1));
    if (name !== '') entries.push([name, value]);
  }
  return entries;
}

function decodeComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw new ServiceError('MALFORMED_REQUEST', 'the request has a malformed percent-encoding or invalid UTF-8');
  }
}
