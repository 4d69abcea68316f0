import { INSPECTOR_SHOWN_DEPTH, isSecretName, MASK, TOO_DEEP } from '../../../shared/inspector.js';
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

/** Headers whose value is a URL, whose query may carry a token (a page's address with ?access_token=). */
const URL_HEADERS: ReadonlySet<string> = new Set(['referer', 'location', 'content-location']);

/** One header's value as shown: a credential's masked, a URL's secret parameters masked. */
export const maskHeaderValue = (name: string, value: string): string =>
  isSecretName(name) ? maskCredential(value) : URL_HEADERS.has(name.toLowerCase()) ? maskUrl(value) : value;

/** Headers as name/value pairs (a repeated header once per value), secrets masked. */
export function maskHeaders(headers: Headers): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, maskHeaderValue(name, String(one))]);
  }
  return pairs;
}

/**
 * A JSON value with the value of every secret-named field masked, down to INSPECTOR_SHOWN_DEPTH;
 * what is deeper is shown as TOO_DEEP, so that neither this nor its JSON.stringify runs out of stack.
 */
export function maskJson(value: unknown, depth = 0): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= INSPECTOR_SHOWN_DEPTH) return TOO_DEEP;
  if (Array.isArray(value)) return value.map((v) => maskJson(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, isSecretName(name) ? MASK : maskJson(v, depth + 1)]));
}

/**
 * A JSON text masked as maskJson masks its value (indented by `indent`); a text that does not
 * parse (a cut one) is masked as text, which a list of strings beside a secret can mislead.
 */
export function maskJsonBody(text: string, indent = 2): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return maskJsonText(text);
  }
  return JSON.stringify(maskJson(value), null, indent);
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
