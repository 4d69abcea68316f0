import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Answer } from '../../shared/contract.js';
import { IMPORT_FORMATS } from '../../shared/file-formats.js';
import { MAX_IMPORT_FILE_BYTES } from '../../shared/import-limits.js';
import type { JobView } from '../../shared/jobs.js';
import { ServiceError, validate } from '../core/errors.js';
import type { Core } from '../core/service.js';
import { authorized, refuse } from './console-auth.js';
import { receiveToFile } from './upload-file.js';

export interface ImportRouteOptions {
  token: () => string;
  imports: Pick<Core, 'startImport' | 'importUploadPath' | 'requireClient'>;
  /** Tests lower it to see the refusal without sending gigabytes. */
  maxBytes?: number;
}

const flag = z.enum(['true', 'false']).optional().transform((v) => v === 'true');
const query = z.object({
  clientId: z.string().regex(/^[0-9a-f-]{36}$/i, 'must be a client id'),
  format: z.enum(IMPORT_FORMATS),
  dryRun: flag,
  createCategories: flag,
  addIdentical: flag,
  /** The category, by name, of the rows that name none. */
  defaultCategory: z.string().max(100, 'must be at most 100 characters').optional(),
  filename: z.string().max(255, 'must be at most 255 characters').optional(),
});

const tooLarge = (limit: number): ServiceError =>
  new ServiceError('PAYLOAD_TOO_LARGE', `a file to import may be at most ${(limit / 1024 ** 3).toFixed(0)} GiB (MAX_IMPORT_FILE_BYTES): split it and import the parts`, 'file');

/**
 * Browser mode's imports: the file is the request's body, written as it arrives to the data
 * folder's `imports/` (never held in memory), then imported by a job (core/imports/import-job.ts);
 * the answer is the job, at once. The import's progress, its Cancel and its report are the
 * console's `jobs.*` operations: no request's deadline decides whether the import happens.
 */
export async function mountImportRoutes(app: FastifyInstance, options: ImportRouteOptions): Promise<void> {
  const limit = options.maxBytes ?? MAX_IMPORT_FILE_BYTES;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { bodyLimit: limit }, (_request, payload, done) => done(null, payload));
    scope.post('/console/imports', { bodyLimit: limit, config: { upload: true } }, async (request, reply) => {
      if (!authorized(request, options.token())) return refuse(reply);
      try {
        const q = validate<z.output<typeof query>>(query, request.query);
        // Before the upload: an unknown client or a file too big wastes no disk.
        options.imports.requireClient(q.clientId);
        if (Number(request.headers['content-length']) > limit) throw tooLarge(limit);
        const spool = options.imports.importUploadPath();
        await receiveToFile(request.raw, spool, limit, () => tooLarge(limit));
        const job = options.imports.startImport(q.clientId, { path: spool, name: q.filename ?? 'the uploaded file', temporary: true }, q.format, { dryRun: q.dryRun, createCategories: q.createCategories, defaultCategory: q.defaultCategory, addIdentical: q.addIdentical });
        return reply.send({ ok: true, value: job } satisfies Answer<JobView>);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        request.raw.resume();
        const body = error.toBody();
        return reply.code(body.code).send({ ok: false, error: body } satisfies Answer<never>);
      }
    });
  });
}
