import type { IncomingHttpHeaders } from 'node:http';
import { isSecretName, MASK } from '../../../shared/inspector.js';
import { HOP_HEADERS, REPLAY_HEADER, type CapturedBody, type Exchange } from './capture.js';
import { maskHeaderValue, maskJsonBody, maskUrl } from './mask.js';

/**
 * A word for a POSIX shell: single-quoted, where nothing is special (`$`, backquotes, newlines,
 * backslashes stay as they are), and each `'` closed, escaped and opened again.
 */
export const shellWord = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;

/** Headers a copy of the request carries: not the connection's own, nor the body's type when the body is sent as a new multipart form. */
export function copiedHeaders(headers: IncomingHttpHeaders, body: CapturedBody | undefined): Array<[string, string]> {
  const multipart = body !== undefined && 'form' in body && body.form === 'multipart';
  const pairs: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_HEADERS.has(name) || name === REPLAY_HEADER || (multipart && name === 'content-type')) continue;
    // What the device asked compressed is asked plain: the command prints what it reads.
    if (name === 'accept-encoding') continue;
    for (const one of Array.isArray(value) ? value : [value]) pairs.push([name, one]);
  }
  return pairs;
}

/** The request body as it is sent again: form fields URL-encoded, JSON as JSON; multipart is sent field by field. */
export function bodyText(body: CapturedBody, withSecrets: boolean): string {
  // As it came, or masked (pretty-printed, which JSON readers take alike).
  if ('jsonText' in body) return withSecrets ? body.jsonText : maskJsonBody(body.jsonText);
  return body.entries.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(!withSecrets && isSecretName(name) ? MASK : value)}`).join('&');
}

/**
 * The curl command that sends the request again to `base` (the listener's own address): its
 * method, URL, headers and body. Without secrets, each secret's value is MASK, to be replaced by
 * hand (docs/devices.md#request-inspector).
 */
export function curlCommand(exchange: Exchange, base: string, withSecrets: boolean): string {
  const args: string[] = ['-sS'];
  args.push(...(exchange.method === 'HEAD' ? ['-I'] : ['-X', exchange.method]));
  for (const [name, value] of copiedHeaders(exchange.headers, exchange.body)) {
    args.push('-H', `${name}: ${withSecrets ? value : isSecretName(name) ? MASK : maskHeaderValue(name, value)}`);
  }
  const body = exchange.body;
  if (body && 'form' in body && body.form === 'multipart') {
    // --form-string: a value starting with @ or < is sent as it is, not read from a file.
    for (const [name, value] of body.entries) args.push('--form-string', `${name}=${!withSecrets && isSecretName(name) ? MASK : value}`);
  } else if (body) {
    args.push('--data-raw', bodyText(body, withSecrets));
  }
  args.push(`${base}${withSecrets ? exchange.url : maskUrl(exchange.url)}`);
  return ['curl', ...args.map(shellWord)].join(' ');
}
