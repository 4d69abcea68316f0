import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import type { Answer } from '../../shared/contract.js';
import type { MapImportJob } from '../../shared/jobs.js';
import { MAX_PACKAGE_BYTES, MAX_PACKAGE_NAME } from '../../shared/maps.js';
import type { Core } from '../core/service.js';
import { ServiceError } from '../core/errors.js';
import { authorized, refuse, tileKey, tileKeyMatches } from './console-auth.js';
import { receiveToFile } from './upload-file.js';

export interface MapRouteOptions {
  token: () => string;
  maps: Core['maps'];
  startMapImport: Core['startMapImport'];
  onlineTiles: Core['onlineTiles'];
  /** Tests lower it to see the refusal without sending gigabytes. */
  maxBytes?: number;
}

/** `name`: the name to list the package under; `filename`: the file's own name, for messages and when the package names itself not. */
interface UploadQuery {
  name?: string;
  filename?: string;
}

/** The browser mode's paths for map packages; the page builds its tile URLs from TILE_PATH. */
const TILE_PATH = '/console/tiles';
const ONLINE_TILE_PATH = '/console/online-tiles';

const tooLarge = (limit: number): ServiceError => new ServiceError('PAYLOAD_TOO_LARGE', `a map package may be at most ${limit} bytes`, 'file');

/**
 * Browser mode's map packages: an upload is streamed to a file in the maps folder (never held
 * in memory) and imported from there by a job, which the answer is; tiles are read from the package file on each request.
 * Electron reads the same through its own scheme (desktop/protocol.ts) and imports a path the
 * native dialog gives.
 */
export async function mountMapRoutes(app: FastifyInstance, options: MapRouteOptions): Promise<void> {
  const limit = options.maxBytes ?? MAX_PACKAGE_BYTES;

  /** The upload to a file of its own, then imported from there by a job (moved, not copied). */
  const receive = async (body: Readable, query: UploadQuery, length: string | undefined): Promise<MapImportJob> => {
    const { name, filename } = query;
    if (name !== undefined && name.length > MAX_PACKAGE_NAME) {
      throw new ServiceError('INVALID_PARAMETER', `name must be at most ${MAX_PACKAGE_NAME} characters`, 'name');
    }
    if (filename !== undefined && (filename.length > 255 || /[/\\\0]/.test(filename))) {
      throw new ServiceError('INVALID_PARAMETER', 'filename must be a file name of at most 255 characters', 'filename');
    }
    if (Number(length) > limit) throw tooLarge(limit);
    const upload = options.maps.uploadPath();
    await receiveToFile(body, upload, limit, () => tooLarge(limit));
    return options.startMapImport({ path: upload, name, move: true, fileName: filename || 'the uploaded file' });
  };

  app.post('/console/tile-key', (request, reply) => {
    if (!authorized(request, options.token())) return refuse(reply);
    return reply.send({ ok: true, value: { key: tileKey(options.token()), path: TILE_PATH, onlinePath: ONLINE_TILE_PATH } });
  });

  app.get<{ Params: { id: string; z: string; x: string; y: string }; Querystring: { k?: string } }>(
    `${TILE_PATH}/:id/:z/:x/:y`,
    async (request, reply) => {
      if (!tileKeyMatches(request.query.k, options.token())) return refuse(reply);
      const { id, z, x, y } = request.params;
      const tile = await options.maps.tile(id, Number(z), Number(x), Number(y));
      // A package's tiles never change (another import is another id): the browser may keep them.
      reply.header('cache-control', 'private, max-age=31536000, immutable');
      if (tile === null) return reply.code(204).send();
      return reply.type(tile.contentType).send(Buffer.from(tile.bytes.buffer, tile.bytes.byteOffset, tile.bytes.byteLength));
    },
  );

  // The online tile server's tiles through the data folder's cache. The page's own HTTP cache is
  // told to keep nothing: the data folder's cache is the one that knows what is fresh.
  app.get<{ Params: { z: string; x: string; y: string }; Querystring: { k?: string } }>(`${ONLINE_TILE_PATH}/:z/:x/:y`, async (request, reply) => {
    if (!tileKeyMatches(request.query.k, options.token())) return refuse(reply);
    const { z, x, y } = request.params;
    try {
      const tile = await options.onlineTiles.tile(Number(z), Number(x), Number(y));
      return reply.header('cache-control', 'no-store').header('x-tile-source', tile.source).type(tile.contentType).send(Buffer.from(tile.bytes));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      const body = error.toBody();
      return reply.code(body.code).header('cache-control', 'no-store').send(body);
    }
  });

  // Its own scope, so that only this route takes a raw body, and as a stream.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { bodyLimit: limit }, (_request, payload, done) => done(null, payload));
    scope.post<{ Querystring: UploadQuery }>('/console/maps', { bodyLimit: limit, config: { upload: true } }, async (request, reply) => {
      if (!authorized(request, options.token())) return refuse(reply);
      try {
        const value = await receive(request.raw, request.query, request.headers['content-length']);
        return reply.send({ ok: true, value } satisfies Answer<MapImportJob>);
      } catch (error) {
        if (!(error instanceof ServiceError)) throw error;
        const body = error.toBody();
        return reply.code(body.code).send({ ok: false, error: body } satisfies Answer<never>);
      }
    });
  });
}
