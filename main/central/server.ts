import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Pool } from 'pg';
import { pino, type Logger } from 'pino';
import { errorBody, type ErrorCode } from '../../shared/errors.js';
import { syncOpenApiDocument } from '../../shared/api/sync-openapi.js';
import { z } from 'zod';
import { CONFLICT_POLICIES, fieldValue, MAX_PULL, pushRequest, resolution, type ConflictReply, type HelloReply } from '../../shared/sync.js';
import { FailedAuthentications } from './auth-failures.js';
import { errorCode } from './pg-error.js';
import { Devices, type Device } from './devices.js';
import { Refusal } from './refusal.js';
import { markResolved, openConflicts } from './protocol/conflicts.js';
import { pull } from './protocol/pull.js';
import { push } from './protocol/push.js';
import { resolveOnCentral } from './protocol/resolve.js';

export interface CentralServerOptions {
  host?: string;
  port?: number;
  /** Serve plain HTTP to other computers too (TLS is then someone else's job, in front). */
  allowPlainHttp?: boolean;
  /** Where the service logs (JSON lines); by default nowhere, as tests want. `central serve` logs to stdout. */
  logger?: Logger;
}

/**
 * How much each request may send, refused with 413 before it is read: a push of MAX_PUSH changes
 * of the largest rows fits in the first; nothing else has a body of more than a few values.
 */
const BODY_LIMITS = { push: 32 * 1024 * 1024, other: 64 * 1024 } as const;

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

const conflictPath = z.object({ id: z.string().max(20) });
const pullQuery = z.object({ after: z.string().max(20).optional(), limit: z.string().max(20).optional(), count: z.string().max(2).optional(), own: z.string().max(2).optional() });
const resolveBody = z.object({ resolution });
const legacyResolvedBody = z.object({ resolution: z.object({ keep: z.string().max(20), value: fieldValue }).partial().optional() });

/** PostgreSQL down, restarting or gone: the connection refused or cut, or the server shutting down (SQLSTATE 57P0x, 08xxx). */
function databaseUnreachable(error: unknown): boolean {
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : '';
  return /^(ECONNREFUSED|ECONNRESET|EPIPE|57P0[1-3]|08\w{3})$/.test(code) || /Connection terminated/.test(message);
}

/** A running sync service, as its starter stops it. */
export interface CentralApp {
  close(): Promise<unknown>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The device the request's credential names, checked before its body is read. */
    device: Device | null;
  }
}

const deviceOf = (request: FastifyRequest): Device => {
  if (!request.device) throw new Refusal('TOKEN_REQUIRED', 'a device credential is required: Authorization: Bearer DEVICE_ID.SECRET');
  return request.device;
};

/**
 * The sync service: stateless HTTP in front of the central PostgreSQL, so several instances may
 * serve one database. Each request is a device's (its credential as a bearer token, checked in
 * the first hook, before any body is read) and reaches its own client application's data only.
 * Every request gets an id; every failure the service did not mean is logged with its cause;
 * the Authorization header never is.
 */
export async function startCentralServer(pool: Pool, options: CentralServerOptions = {}): Promise<{ app: CentralApp; url: string }> {
  const devices = new Devices(pool);
  const failures = new FailedAuthentications();
  const logger = options.logger ?? pino({ enabled: false });
  const app = Fastify({
    bodyLimit: BODY_LIMITS.other,
    // The TLS proxy on this computer (docs/central.md) says whose request it passes on: an address
    // it gives is the one limits count by. No one else's X-Forwarded-For is believed.
    trustProxy: ['127.0.0.1', '::1'],
    loggerInstance: logger.child({}, { redact: ['req.headers.authorization', 'headers.authorization'] }),
  });
  app.decorateRequest('device', null);
  const refuse = (reply: FastifyReply, code: ErrorCode, message: string) => {
    const body = errorBody(code, message);
    return reply.code(body.code).send(body);
  };

  app.addHook('onRequest', async (request, reply) => {
    // Behind a TLS proxy on this computer, the proxy's connection is the loopback one.
    if (!options.allowPlainHttp && !LOOPBACK.test(request.socket.remoteAddress ?? '')) {
      throw new Refusal('FORBIDDEN', 'plain HTTP from another computer is refused: put TLS in front of the sync service (docs/central.md), or start it with --allow-plain-http');
    }
    if (request.url === '/sync/openapi.json') return;
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Bearer ')) throw new Refusal('TOKEN_REQUIRED', 'a device credential is required: Authorization: Bearer DEVICE_ID.SECRET');
    const credential = header.slice(7);
    // Counted per address and the device the credential claims: guesses at one device wait, the others (behind one proxy, one NAT) do not.
    const key = `${request.ip} ${credential.slice(0, credential.indexOf('.'))}`;
    const wait = failures.waitFor(key);
    if (wait > 0) {
      reply.header('retry-after', String(wait));
      throw new Refusal('TOO_MANY_REQUESTS', `too many failed credentials for this device from ${request.ip}: try again in ${wait} s`);
    }
    request.device = (await devices.authenticate(credential)) ?? null;
    if (!request.device) {
      failures.failed(key);
      throw new Refusal('INVALID_TOKEN', 'this device credential is not valid, or was revoked');
    }
  });

  app.setErrorHandler((error, request, reply) => {
    if (error instanceof Refusal) return refuse(reply, error.code, error.message);
    if (databaseUnreachable(error)) {
      request.log.warn({ err: error }, 'the central database cannot be reached');
      return refuse(reply, 'STORAGE_UNAVAILABLE', 'the central database cannot be reached; nothing of this request was kept: try again later');
    }
    const status = typeof error === 'object' && error !== null && 'statusCode' in error ? error.statusCode : undefined;
    if (status === 413) return refuse(reply, 'PAYLOAD_TOO_LARGE', `the request's body is larger than this service takes (${BODY_LIMITS.push / 1024 / 1024} MiB for a push, ${BODY_LIMITS.other / 1024} KiB otherwise): push fewer changes at a time`);
    if (status === 400 || status === 415) return refuse(reply, 'MALFORMED_REQUEST', error instanceof Error ? error.message : 'malformed request');
    request.log.error({ err: error }, 'the sync service failed');
    return refuse(reply, 'INTERNAL', `the sync service failed; nothing of this request was kept (request ${request.id} in the service's log)`);
  });

  const description = syncOpenApiDocument();
  app.get('/sync/openapi.json', async () => description);
  app.get('/sync/hello', async (request) => {
    const device = deviceOf(request);
    const { rows } = await pool.query<{ name: string; conflict_policy: string }>('SELECT name, conflict_policy FROM clients WHERE id = $1', [device.clientId]);
    const policy = CONFLICT_POLICIES.find((p) => p === rows[0]?.conflict_policy) ?? 'last-writer-wins';
    return { device: device.id, device_name: device.name ?? '', client_id: device.clientId, client_name: rows[0]?.name ?? null, policy, mark: await devices.mark(device.id) } satisfies HelloReply;
  });
  app.post('/sync/push', { bodyLimit: BODY_LIMITS.push }, async (request, reply) => {
    const device = deviceOf(request);
    const parsed = pushRequest.safeParse(request.body);
    if (!parsed.success) return refuse(reply, 'INVALID_PARAMETER', parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return push(pool, device, parsed.data.changes, parsed.data.mark);
  });
  app.get('/sync/pull', async (request, reply) => {
    const device = deviceOf(request);
    const parsed = pullQuery.safeParse(request.query);
    if (!parsed.success) return refuse(reply, 'INVALID_PARAMETER', 'after, limit, count and own are whole numbers');
    const query = parsed.data;
    const after = Number(query.after ?? 0);
    const limit = Number(query.limit ?? MAX_PULL);
    if (!Number.isSafeInteger(after) || after < 0) return refuse(reply, 'INVALID_PARAMETER', 'after must be a whole number, 0 or more');
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PULL) return refuse(reply, 'INVALID_PARAMETER', `limit must be 1-${MAX_PULL}`);
    return pull(pool, device, { after, limit, count: query.count === '1', own: query.own === '1' });
  });
  app.get('/sync/conflicts', async (request): Promise<ConflictReply[]> => openConflicts(pool, deviceOf(request).clientId));
  const conflictId = (request: FastifyRequest): number => {
    const id = Number(conflictPath.safeParse(request.params).data?.id);
    if (!Number.isSafeInteger(id) || id < 1) throw new Refusal('NOT_FOUND', 'no such conflict: its id is a whole number');
    return id;
  };
  app.post('/sync/conflicts/:id/resolve', async (request, reply) => {
    const device = deviceOf(request);
    const id = conflictId(request);
    const parsed = resolveBody.safeParse(request.body);
    if (!parsed.success) return refuse(reply, 'INVALID_PARAMETER', 'resolution must be {keep: "pushed"|"earlier"}, {value}, {rename: {uuid, to}} or {merge: {keep, drop}}');
    return resolveOnCentral(pool, device, id, parsed.data.resolution);
  });
  // Older desktops, from before conflicts were resolved here, wrote the outcome themselves, then marked it here.
  app.post('/sync/conflicts/:id/resolved', async (request, reply) => {
    const device = deviceOf(request);
    const id = conflictId(request);
    const parsed = legacyResolvedBody.safeParse(request.body ?? {});
    if (!parsed.success) return refuse(reply, 'INVALID_PARAMETER', 'resolution must be {keep, value}');
    if (!(await markResolved(pool, device, id, parsed.data.resolution ?? null))) return refuse(reply, 'NOT_FOUND', `no open conflict ${id} in this client application`);
    return { code: 200, description: 'OK' };
  });

  const address = await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  return { app: { close: () => app.close() }, url: address };
}
