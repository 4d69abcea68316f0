import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Answer } from '../../shared/contract.js';
import { contentSecurityPolicy } from '../../shared/content-security-policy.js';
import type { ParsedBody } from './body-parsers.js';
import { authorized, refuse } from './console-auth.js';
import { mountDownloadRoutes, type DownloadRouteOptions } from './download-routes.js';
import { mountImportRoutes, type ImportRouteOptions } from './import-routes.js';
import { mountMapRoutes, type MapRouteOptions } from './map-routes.js';

export interface ConsoleOptions {
  /** The console token as it is now (it may be rotated while the console runs). */
  token: () => string;
  invoke: (op: string, input: unknown) => Promise<Answer<unknown>>;
  /** The built renderer (index.html and assets/). */
  staticDir: string;
  /** The tile server's origin, allowed for images only. */
  tileOrigins: () => string[];
  /** Offline map packages (uploads and tiles), and the online tiles' cache. */
  maps: MapRouteOptions['maps'];
  onlineTiles: MapRouteOptions['onlineTiles'];
  startMapImport: MapRouteOptions['startMapImport'];
  /** Exports, downloaded through single-use addresses. */
  exportPois: DownloadRouteOptions['exportPois'];
  requireClient: DownloadRouteOptions['requireClient'];
  exportFile: DownloadRouteOptions['exportFile'];
  imports: ImportRouteOptions['imports'];
}

/**
 * Browser mode: the admin UI and its operations over HTTP. The page and its assets hold no secret
 * and are served to anyone on the listener; every operation needs `Authorization: Bearer <console
 * token>`. The address printed at start carries the token in its fragment, which browsers never
 * send; the page keeps it in its tab's session storage and sends the header itself.
 *
 * No cookie, on purpose: cookies are not kept apart by port, so every other server on 127.0.0.1
 * would receive one. With no credential the browser adds by itself, and no CORS headers, another
 * site or local page cannot get an operation run (no CSRF), whatever it sends.
 */
export async function mountConsole(app: FastifyInstance, options: ConsoleOptions): Promise<void> {
  const indexFile = join(options.staticDir, 'index.html');
  const index = (): string =>
    existsSync(indexFile)
      ? readFileSync(indexFile, 'utf8')
      : '<!doctype html><p>The admin UI is not built: run <code>npm run build</code>.</p>';

  app.get('/', (_request, reply) =>
    reply
      .header('content-security-policy', contentSecurityPolicy(options.tileOrigins()))
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(index()),
  );

  await app.register(fastifyStatic, { root: join(options.staticDir, 'assets'), prefix: '/assets/', index: false, wildcard: true });

  app.post('/console/api/:op', async (request, reply) => {
    if (!authorized(request, options.token())) return refuse(reply);
    const { op } = request.params as { op: string };
    const body = request.body as ParsedBody | undefined;
    const input = body && 'json' in body ? body.json : {};
    const answer = await options.invoke(op, input);
    return reply.code(answer.ok ? 200 : answer.error.code).send(answer);
  });

  await mountMapRoutes(app, { token: options.token, maps: options.maps, onlineTiles: options.onlineTiles, startMapImport: options.startMapImport });
  mountDownloadRoutes(app, { token: options.token, exportPois: options.exportPois, requireClient: options.requireClient, exportFile: options.exportFile });
  await mountImportRoutes(app, { token: options.token, imports: options.imports });
}
