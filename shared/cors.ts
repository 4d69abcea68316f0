import { z } from 'zod';

/**
 * The origins whose pages may call the `/1/` API from a browser (docs/devices.md#cors): the
 * listener settings, the Listener panel and `serve --cors` all read them through this rule.
 */

/** Any origin at all: allowed, with a warning wherever it is shown. */
export const ANY_ORIGIN = '*';
export const MAX_CORS_ORIGINS = 20;
/** Said wherever `*` is listed: the panel, and `serve`. */
export const ANY_ORIGIN_WARNING =
  'CORS allows any origin (*): every web page this computer or a device opens can call the API, and read what it answers to a token it holds. List the origins of your own apps instead.';
const MAX_ORIGIN_LENGTH = 200;

/** `scheme://host[:port]` as a browser sends it in `Origin`, or null when the text is not one. */
export function serializedOrigin(text: string): string | null {
  const trimmed = text.trim();
  if (trimmed === ANY_ORIGIN) return ANY_ORIGIN;
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // An origin has no path, query, fragment or user: a page address pasted whole is refused, not cut.
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return null;
  return url.origin;
}

export const ORIGIN_RULE = 'must be an origin such as http://localhost:5173 (scheme, host and port; no path), or * for any';

/** One allowed origin, as typed; turned into its serialized form. */
export const corsOrigin = z
  .string()
  .max(MAX_ORIGIN_LENGTH, `must be at most ${MAX_ORIGIN_LENGTH} characters`)
  .transform((text, ctx) => {
    const origin = serializedOrigin(text);
    if (origin === null) ctx.addIssue({ code: 'custom', message: `"${text.trim()}" ${ORIGIN_RULE}` });
    return origin ?? '';
  });

export const corsOrigins = z
  .array(corsOrigin)
  .max(MAX_CORS_ORIGINS, `at most ${MAX_CORS_ORIGINS} origins`)
  .transform((list) => [...new Set(list)]);
