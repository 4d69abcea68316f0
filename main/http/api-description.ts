import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { openApiDocument } from '../../shared/api/openapi.js';

/** Swagger UI, from its npm package: the reference page works offline. */
const SWAGGER_UI = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>POI &amp; Membership API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/1/reference/swagger-ui.css"></head>
<body><div id="reference"></div>
<script src="/1/reference/swagger-ui-bundle.js"></script>
<script src="/1/reference/start.js"></script></body></html>`;

/** Our own code only (no inline script); Swagger UI styles with inline attributes and data: images. */
const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const START = `window.ui = SwaggerUIBundle({ url: '/1/openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false });`;

/**
 * The API's description for developers: `GET /1/openapi.json` (OpenAPI 3.1, generated from the
 * operations' one declaration) and `GET /1/reference` (a readable page of it, Swagger UI bundled,
 * no network needed). Both are public: they describe the API and hold no data.
 */
export async function mountApiDescription(app: FastifyInstance): Promise<void> {
  const document = JSON.stringify(openApiDocument());
  app.get('/1/openapi.json', (_request, reply) => reply.type('application/json; charset=utf-8').send(document));
  app.get('/1/reference', (_request, reply) =>
    reply.header('content-security-policy', PAGE_CSP).header('x-content-type-options', 'nosniff').type('text/html; charset=utf-8').send(PAGE),
  );
  app.get('/1/reference/start.js', (_request, reply) => reply.type('text/javascript; charset=utf-8').send(START));
  await app.register(fastifyStatic, {
    root: SWAGGER_UI,
    prefix: '/1/reference/',
    index: false,
    decorateReply: false,
    allowedPath: (path) => /^\/(swagger-ui\.css|swagger-ui-bundle\.js)$/.test(path),
  });
}
