import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Answer } from '../../shared/contract.js';
import { EXPORT_FORMATS } from '../../shared/exports.js';
import { ServiceError, validate } from '../core/errors.js';
import type { ImportReport } from '../core/imports/poi-import.js';
import type { Core } from '../core/service.js';
import { authorized, refuse } from './console-auth.js';

export interface ImportRouteOptions {
  token: () => string;
  importPois: Core['importPois'];
}

const flag = z.enum(['true', 'false']).optional().transform((v) => v === 'true');
const query = z.object({
  clientId: z.string().regex(/^[0-9a-f-]{36}$/i, 'must be a client id'),
  format: z.enum(EXPORT_FORMATS),
  dryRun: flag,
  createCategories: flag,
});

/**
 * Browser mode's imports: the file is the request's body, read as it arrives (never held whole,
 * CSV at least) and imported row by row; the answer is the import's report. The listener's
 * request deadline (30 s) bounds how long an upload may take.
 */
export async function mountImportRoutes(app: FastifyInstance, options: ImportRouteOptions): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { bodyLimit: 1024 ** 3 }, (_request, payload, done) => done(null, payload));
    scope.post('/console/imports', { bodyLimit: 1024 ** 3 }, async (request, reply) => {
      if (!authorized(request, options.token())) return refuse(reply);
      try {
        const q = validate<z.output<typeof query>>(query, request.query);
        const report = await options.importPois(q.clientId, request.raw, q.format, { dryRun: q.dryRun, createCategories: q.createCategories });
        return reply.send({ ok: true, value: report } satisfies Answer<ImportReport>);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        request.raw.resume();
        const body = error.toBody();
        return reply.code(body.code).send({ ok: false, error: body } satisfies Answer<never>);
      }
    });
  });
}
