import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Answer } from '../../shared/contract.js';
import { errorBody } from '../../shared/errors.js';
import type { ParsedBody } from './body-parsers.js';

export interface ConsoleOptions {
  /** The console token: printed in the URL at start, then kept in an HttpOnly cookie. */
  token: string;
  invoke: (op: string, input: unknown) => Promise<Answer<unknown>>;
  /** The built renderer (index.html and assets/). */
  staticDir: string;
  /** The tile server's origin, allowed for images only. */
  tileOrigins: () => string[];
}

/**
 * Cookies are not kept apart by port: named after the listener's port, the consoles of browser
 * mode and of `cli serve` on one computer do not overwrite each other's.
 */
export const consoleCookie = (request: FastifyRequest): string => `poi_console_${request.raw.socket.localPort ?? 0}`;

const sameSecret = (given: string | undefined, token: string): boolean => {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

function authorized(request: FastifyRequest, token: string): boolean {
  const header = request.headers.authorization;
  const bearer = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
  return sameSecret(request.cookies[consoleCookie(request)], token) || sameSecret(bearer, token);
}

/** The CSP of the admin UI: our own code only; tiles from the tile server as images, nothing else. */
export function contentSecurityPolicy(tileOrigins: string[]): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    // Leaflet positions tiles and markers with inline style attributes.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob: ${tileOrigins.join(' ')}`.trim(),
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const UNAUTHORIZED_PAGE = `<!doctype html><meta charset="utf-8"><title>POI Membership Admin</title>
<p>This console needs its token. Open the address printed when the service started (it ends in <code>?token=...</code>).</p>`;

/**
 * Browser mode: the admin UI and its operations over HTTP, protected like Jupyter's: the URL
 * printed at start carries the token, the first visit trades it for an HttpOnly SameSite=Strict
 * cookie, and every other request needs that cookie (or `Authorization: Bearer`). Without it the
 * UI and the operations answer 401.
 */
export async function mountConsole(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  await app.register(fastifyCookie);
  const indexFile = join(options.staticDir, 'index.html');
  const index = (): string =>
    existsSync(indexFile)
      ? readFileSync(indexFile, 'utf8')
      : '<!doctype html><p>The admin UI is not built: run <code>npm run build</code>.</p>';

  const refuse = (reply: FastifyReply, html: boolean): FastifyReply =>
    html
      ? reply.code(401).type('text/html; charset=utf-8').send(UNAUTHORIZED_PAGE)
      : reply.code(401).send({ ok: false, error: errorBody('TOKEN_REQUIRED', 'the console token is missing or wrong') });

  app.get('/', (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    if (query.token !== undefined) {
      if (!sameSecret(query.token, options.token)) return refuse(reply, true);
      void reply.setCookie(consoleCookie(request), options.token, { httpOnly: true, sameSite: 'strict', path: '/' });
      return reply.redirect('/', 303);
    }
    if (!authorized(request, options.token)) return refuse(reply, true);
    return reply
      .header('content-security-policy', contentSecurityPolicy(options.tileOrigins()))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(index());
  });

  await app.register(async (assets) => {
    assets.addHook('onRequest', async (request, reply) => {
      if (!authorized(request, options.token)) return refuse(reply, false);
      return undefined;
    });
    await assets.register(fastifyStatic, { root: join(options.staticDir, 'assets'), prefix: '/assets/', index: false, wildcard: true });
  });

  app.post('/console/api/:op', async (request, reply) => {
    if (!authorized(request, options.token)) return refuse(reply, false);
    const { op } = request.params as { op: string };
    const body = request.body as ParsedBody | undefined;
    const input = body && 'json' in body ? body.json : {};
    const answer = await options.invoke(op, input);
    return reply.code(answer.ok ? 200 : answer.error.code).send(answer);
  });
}
