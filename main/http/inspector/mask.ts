import { isSecretName, MASK } from '../../../shared/inspector.js';
import type { Entries } from '../params.js';

/**
 * Masking of what the inspector shows (docs/devices.md#request-inspector): every parameter,
 * header and JSON field whose name is a secret's (shared/inspector.ts) has its value replaced.
 * Done when a request is read, never when it is kept: the listener pays nothing for it.
 */

/** A query parameter's name as the API reads it (`+` is a space); undecodable names are kept as they came. */
function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return raw;
  }
}

/** The URL with the values of secret query parameters masked; everything else as it came. */
export function maskUrl(url: string): string {
  const q = url.indexOf('?');
  if (q === -1) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const name = eq === -1 ? part : part.slice(0, eq);
      return eq !== -1 && isSecretName(decodedName(name)) ? `${name}=${MASK}` : part;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

export const maskEntries = (entries: Entries): Entries => entries.map(([name, value]) => [name, isSecretName(name) ? MASK : value]);

/** `Bearer abc` -> `Bearer ***`: the scheme says what kind of credential was sent. */
const maskCredential = (value: string): string => {
  const scheme = /^([A-Za-z][\w-]*) +\S/.exec(value);
  return scheme ? `${scheme[1]} ${MASK}` : MASK;
};

/** A request's or a reply's headers, as Node and Fastify hold them. */
export type Headers = Record<string, string | number | string[] | undefined>;

/** Headers as name/value pairs (a repeated header once per value), secrets masked. */
export function maskHeaders(headers: Headers): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, isSecretName(name) ? maskCredential(String(one)) : String(one)]);
  }
  return pairs;
}

/** A JSON value with the value of every secret-named field, at any depth, masked. */
export function maskJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(maskJson);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, isSecretName(name) ? MASK : maskJson(v)]));
}

/** A JSON string literal, then a colon and a value: a string, or anything up to the next delimiter. */
const FIELD = /"((?:[^"\\]|\\.)*)"(\s*:\s*)("(?:[^"\\]|\\.)*"?|[^,{}[\]\s"]*)/g;

/**
 * A reply's text with secret-named JSON fields masked. Read as text, not parsed: a reply cut at
 * INSPECTOR_BODY_BYTES is no longer JSON, and its secrets must be masked all the same. A field
 * whose value is an object or a list has its secret-named fields masked inside it.
 */
export const maskJsonText = (text: string): string =>
  text.replace(FIELD, (field, name: string, colon: string, value: string) => {
    if (!isSecretName(name) || value === '' || value === 'null') return field;
    return `"${name}"${colon}"${MASK}"`;
  });
