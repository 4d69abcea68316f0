import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { errorBody, type ErrorCode } from '../../shared/errors.js';
import { syncOpenApiDocument } from '../../shared/api/sync-openapi.js';
import { CONFLICT_POLICIES, MAX_PULL, pushRequest, type ConflictReply, type HelloReply } from '../../shared/sync.js';
import { Devices, type Device } from './devices.js';
import { openConflicts, resolveConflict } from './protocol/conflicts.js';
import { pull } from './protocol/pull.js';
import { push } from './protocol/push.js';

export interface CentralServerOptions {
  host?: string;
  port?: number;
  /** Serve plain HTTP to other computers too (TLS is then someone else's job, in front). */
  allowPlainHttp?: boolean;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

/** PostgreSQL down, restarting or gone: the connection refused or cut, or the server shutting down (SQLSTATE 57P0x, 08xxx). */
function databaseUnreachable(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  const message = error instanceof Error ? error.message : '';
  return /^(ECONNREFUSED|ECONNRESET|EPIPE|57P0[1-3]|08\w{3})$/.test(code) || /Connection terminated/.test(message);
}

class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The sync service: stateless HTTP in front of the central PostgreSQL, so several instances may
 * serve one database. Each request is a device's (its credential as a bearer token) and reaches
 * its own client application's data only.
 */
export async function startCentralServer(pool: Pool, options: CentralServerOptions = {}): Promise<{ app: FastifyInstance; url: string }> {
  const devices = new Devices(pool);
  const app = Fastify({ bodyLimit: 64 * 1024 * 1024 });
  const deviceOf = async (request: FastifyRequest): Promise<Device> => {
    // Behind a TLS proxy on this computer, the proxy's connection is the loopback one.
    if (!options.allowPlainHttp && !LOOPBACK.test(request.socket.remoteAddress ?? '')) {
      throw new Refusal('FORBIDDEN', 'plain HTTP from another computer is refused: put TLS in front of the sync service (see the README), or start it with --allow-plain-http');
    }
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) throw new Refusal('TOKEN_REQUIRED', 'a device credential is required: Authorization: Bearer DEVICE_ID.SECRET');
    const device = await devices.authenticate(header.slice(7));
    if (!device) throw new Refusal('INVALID_TOKEN', 'this device credential is not valid, or was revoked');
    return device;
  };
  const refuse = (reply: FastifyReply, code: ErrorCode, message: string) => {
    const body = errorBody(code, message);
    return reply.code(body.code).send(body);
  };
  app.setErrorHandler((error, _request, reply) => {
    if (error instanceof Refusal) return refuse(reply, error.code, error.message);
    if (databaseUnreachable(error)) return refuse(reply, 'STORAGE_UNAVAILABLE', 'the central database cannot be reached; nothing of this request was kept: try again later');
    const status = typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
    if (status === 400 || status === 415) return refuse(reply, 'MALFORMED_REQUEST', error instanceof Error ? error.message : 'malformed request');
    reply.log.error(error);
    return refuse(reply, 'INTERNAL', 'the sync service failed; nothing of this request was kept');
  });

  const description = syncOpenApiDocument();
  app.get('/sync/openapi.json', async () => description);
  app.get('/sync/hello', async (request) => {
    const device = await deviceOf(request);
    const { rows } = await pool.query<{ name: string; conflict_policy: string }>('SELECT name, conflict_policy FROM clients WHERE id = $1', [device.clientId]);
    const policy = CONFLICT_POLICIES.find((p) => p === rows[0]?.conflict_policy) ?? 'last-writer-wins';
    return { device: device.id, client_id: device.clientId, client_name: rows[0]?.name ?? null, policy } satisfies HelloReply;
  });
  app.post('/sync/push', async (request, reply) => {
    const device = await deviceOf(request);
    const parsed = pushRequest.safeParse(request.body);
    if (!parsed.success) return refuse(reply, 'INVALID_PARAMETER', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return push(pool, device, parsed.data.changes);
  });
  app.get('/sync/pull', async (request, reply) => {
    const device = await deviceOf(request);
    const query = request.query as Record<string, string | undefined>;
    const after = Number(query.after ?? 0);
    const limit = Number(query.limit ?? MAX_PULL);
    if (!Number.isInteger(after) || after < 0) return refuse(reply, 'INVALID_PARAMETER', 'after must be a whole number, 0 or more');
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PULL) return refuse(reply, 'INVALID_PARAMETER', `limit must be 1-${MAX_PULL}`);
    return pull(pool, device.clientId, after, limit, query.count === '1');
  });
  app.get('/sync/conflicts', async (request): Promise<ConflictReply[]> => openConflicts(pool, (await deviceOf(request)).clientId));
  app.post('/sync/conflicts/:id/resolved', async (request, reply) => {
    const device = await deviceOf(request);
    const id = Number((request.params as { id: string }).id);
    const body = (request.body ?? {}) as { resolution?: unknown };
    if (!(await resolveConflict(pool, device, id, body.resolution ?? null))) return refuse(reply, 'NOT_FOUND', `no open conflict ${id} in this client application`);
    return { code: 200, description: 'OK' };
  });

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  return { app, url: address };
}
