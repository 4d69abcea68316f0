import { z } from 'zod';
import { ERRORS, type ErrorCode } from '../errors.js';
import { conflictReply, FIELD_VALUE_JSON_SCHEMA, fieldValue, helloReply, MAX_PULL, pullReply, pushReply, pushRequest } from '../sync.js';

type Json = Record<string, unknown>;

const schema = (s: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _schema, ...rest } = z.toJSONSchema(s, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
    // A field's value is checked by a plain test (shared/sync.ts), which says its shape here.
    override: (ctx) => {
      if (ctx.zodSchema === fieldValue) Object.assign(ctx.jsonSchema, FIELD_VALUE_JSON_SCHEMA);
    },
  }) as Json;
  return rest;
};

const errorBody: Json = {
  type: 'object',
  properties: { code: { type: 'integer' }, description: { type: 'string' }, message: { type: 'string' } },
  required: ['code', 'description'],
};

const answers = (ok: Json, refusals: readonly ErrorCode[]): Json => ({
  200: { description: 'OK', content: { 'application/json': { schema: ok } } },
  ...Object.fromEntries(
    [...new Set(refusals.map((code) => ERRORS[code].status))].map((status) => [
      String(status),
      {
        description: refusals.filter((code) => ERRORS[code].status === status).map((code) => ERRORS[code].description).join(', '),
        content: { 'application/json': { schema: errorBody } },
      },
    ]),
  ),
});

const EVERY: readonly ErrorCode[] = ['TOKEN_REQUIRED', 'INVALID_TOKEN', 'FORBIDDEN', 'STORAGE_UNAVAILABLE', 'INTERNAL'];

/**
 * The sync service's API (`central serve`), OpenAPI 3.1, generated from the protocol's one
 * declaration (shared/sync.ts); served at `GET /sync/openapi.json`.
 */
export function syncOpenApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: {
      title: 'POI Membership central sync service',
      version: '1',
      description:
        'What desktops push to and pull from the central store (PostgreSQL). Every request carries a device credential ' +
        '(`Authorization: Bearer DEVICE_ID.SECRET`, issued by `central device add`). Plain HTTP is answered only on ' +
        'this computer unless the service was started with --allow-plain-http: put TLS in front.',
    },
    components: { securitySchemes: { device: { type: 'http', scheme: 'bearer', description: 'DEVICE_ID.SECRET' } } },
    security: [{ device: [] }],
    paths: {
      '/sync/hello': { get: { summary: 'Who this credential is: the device, its client application and the conflict policy', responses: answers(schema(helloReply, 'output'), EVERY) } },
      '/sync/push': {
        post: {
          summary: 'Apply a batch of local changes in one transaction; a retried push applies each change once (by its op id)',
          requestBody: { required: true, content: { 'application/json': { schema: schema(pushRequest, 'input') } } },
          responses: answers(schema(pushReply, 'output'), [...EVERY, 'INVALID_PARAMETER', 'MALFORMED_REQUEST']),
        },
      },
      '/sync/pull': {
        get: {
          summary: "The client application's rows changed after the cursor, in change-sequence order",
          parameters: [
            { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 }, description: 'The cursor: the last `cursor` a pull gave (0 at first).' },
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_PULL, default: MAX_PULL } },
            { name: 'count', in: 'query', schema: { type: 'integer', enum: [0, 1] }, description: '1: also say how many rows remain (`remaining`), for a progress bar.' },
          ],
          responses: answers(schema(pullReply, 'output'), [...EVERY, 'INVALID_PARAMETER']),
        },
      },
      '/sync/conflicts': { get: { summary: "The client application's open conflicts, oldest first", responses: answers({ type: 'array', items: schema(conflictReply, 'output') }, EVERY) } },
      '/sync/conflicts/{id}/resolved': {
        post: {
          summary: 'Mark a conflict resolved (the resolution itself is an ordinary change, pushed)',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { resolution: {} } } } } },
          responses: answers({ type: 'object', properties: { code: { const: 200 }, description: { const: 'OK' } } }, [...EVERY, 'NOT_FOUND']),
        },
      },
    },
  };
}
