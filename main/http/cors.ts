import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { API, POSSIBLE_DUPLICATES_HEADER } from '../../shared/api/operations.js';
import { ANY_ORIGIN } from '../../shared/cors.js';
import { FAULT_HEADER } from './faults.js';

/**
 * CORS on the `/1/` API, for web apps under development (docs/devices.md#cors): off until the
 * listener's settings (or `serve --cors`) list an origin. A listed origin's requests get
 * `Access-Control-Allow-Origin`, and its preflights (OPTIONS with `Access-Control-Request-Method`)
 * a 204 naming the API's verbs and echoing the headers asked for, as the Fetch standard's CORS
 * protocol expects; any other origin, and every other path (the admin console), get no CORS
 * header at all, so a browser keeps their answers from the page. No credentials: the API's
 * tokens travel as parameters, never as cookies.
 */

/** Every verb some operation takes, and HEAD (reads take it). */
const METHODS = [...new Set(['HEAD', ...Object.values(API).flatMap((op) => op.verbs)])];
/** Headers a page may read beyond the safelisted ones. */
const EXPOSED = [POSSIBLE_DUPLICATES_HEADER, 'Retry-After', FAULT_HEADER];
/** How long a browser may keep a preflight's answer, in seconds. */
const PREFLIGHT_MAX_AGE_S = 600;

export const isApiPath = (url: string): boolean => url.startsWith('/1/');

/**
 * Registers @fastify/cors for `origins`, read on every request so that a change needs no restart.
 * Its OPTIONS route answers what the hook did not: those fall to the not-found handler (405 on
 * an API path), as before.
 */
export async function mountCors(app: FastifyInstance, origins: () => readonly string[]): Promise<void> {
  await app.register(fastifyCors, {
    delegator: (request, callback) => {
      const list = origins();
      const origin = request.headers.origin;
      const allowed = list.includes(ANY_ORIGIN) ? ANY_ORIGIN : origin !== undefined && list.includes(origin) ? origin : undefined;
      // A plain OPTIONS (no preflight) is no CORS request: the API refuses its verb as before.
      const plainOptions = request.method === 'OPTIONS' && request.headers['access-control-request-method'] === undefined;
      // An origin not listed gets no CORS header, and its preflight the API's 405: the browser stops there.
      if (allowed === undefined || !isApiPath(request.url) || plainOptions) {
        callback(null, { origin: false });
        return;
      }
      callback(null, {
        origin: allowed,
        methods: METHODS,
        exposedHeaders: EXPOSED,
        maxAge: PREFLIGHT_MAX_AGE_S,
        credentials: false,
      });
    },
  });
}

/** The verbs the API's catch-all route takes: all but OPTIONS once @fastify/cors owns that one. */
export const routedMethods = (app: FastifyInstance, cors: boolean): string[] =>
  cors ? app.supportedMethods.filter((m) => m !== 'OPTIONS') : app.supportedMethods;
