import { z } from 'zod';
import { ERRORS, type ErrorCode, type ErrorDeclaration } from '../errors.js';
import { ACCESS, API, type Access, type ApiName, type ApiOperation } from './operations.js';
import { NAMED_REPLIES } from './replies.js';

/** The table seen as plain operations: its precise types are too many for TypeScript here. */
const OPERATIONS: Readonly<Record<ApiName, ApiOperation>> = API;
/** The catalog seen as plain declarations: `when` is absent from some entries. */
const CATALOG: Readonly<Record<ErrorCode, ErrorDeclaration>> = ERRORS;

/** Refusals any operation may answer: unreadable requests, overload, storage, bugs. */
const EVERY_OPERATION: readonly ErrorCode[] = [
  'MALFORMED_REQUEST', 'AMBIGUOUS_PARAMETER', 'UNSUPPORTED_VERSION', 'UNSUPPORTED_FORMAT', 'METHOD_NOT_ALLOWED', 'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'TOO_MANY_CONNECTIONS', 'INTERNAL',
  'MISDIRECTED_REQUEST',
];
const WRITES: readonly ErrorCode[] = ['STORAGE_FULL', 'STORAGE_BUSY', 'STORAGE_UNAVAILABLE'];
const READS: readonly ErrorCode[] = ['STORAGE_UNAVAILABLE'];
const BY_ACCESS: Record<Access, readonly ErrorCode[]> = {
  member: ['TOKEN_REQUIRED', 'INVALID_TOKEN', 'TOKEN_EXPIRED'],
  admin: ['TOKEN_REQUIRED', 'INVALID_TOKEN', 'TOKEN_EXPIRED', 'FORBIDDEN'],
  apiKey: ['MISSING_PARAMETER', 'INVALID_API_KEY'],
  apiKeyOrAdmin: ['TOKEN_REQUIRED', 'INVALID_TOKEN', 'TOKEN_EXPIRED', 'FORBIDDEN', 'INVALID_API_KEY', 'IMPLICIT_FLOW_DISABLED'],
};
const SECURITY: Record<Access, Array<Record<string, string[]>>> = {
  member: [{ access_token: [] }, { oauth_token: [] }],
  admin: [{ access_token: [] }, { oauth_token: [] }],
  apiKey: [{ api_key: [] }],
  apiKeyOrAdmin: [{ access_token: [] }, { oauth_token: [] }, { api_key: [] }],
};

/** Every refusal an operation may answer, by what it is, who may call it and what it reads. */
export function errorsOf(operation: ApiOperation): ErrorCode[] {
  const hasInput = Object.keys((operation.input as z.ZodObject).shape ?? {}).length > 0;
  return [
    ...new Set<ErrorCode>([
      ...EVERY_OPERATION,
      ...(operation.reads ? READS : WRITES),
      ...BY_ACCESS[operation.access],
      ...(hasInput ? (['MISSING_PARAMETER', 'INVALID_PARAMETER'] as const) : []),
      ...operation.errors,
    ]),
  ];
}

type Json = Record<string, unknown>;

/**
 * The catalog's texts link to pages beside docs/api.md, which the reference page served at
 * /1/reference cannot reach: it names the page instead (`Connections in docs/devices.md`).
 */
const unlinked = (markdown: string): string => markdown.replace(/\[([^\]]*)\]\(([^)#]*)[^)]*\)/g, '$1 in docs/$2');

/** What an answer of one status means for an operation: each refusal, and when the API answers it. */
const refusals = (codes: readonly ErrorCode[]): string =>
  codes
    .map((code) => {
      const { description, when } = CATALOG[code];
      return when === undefined ? `- \`${description}\`` : `- \`${description}\`: ${unlinked(when)}`;
    })
    .join('\n');

const ref = (id: string): Json => ({ $ref: `#/components/schemas/${id}` });
const strip = ({ $schema: _schema, $id: _id, ...rest }: Json): Json => rest;

/**
 * The replies' JSON Schemas (draft 2020-12, OpenAPI 3.1's dialect): the named ones as components
 * referring to one another, and each operation's reply (a named one, or an array of one).
 */
function replySchemas(): { components: Record<string, Json>; replyOf: (name: ApiName) => Json } {
  const registry = z.registry<{ id: string }>();
  const named = new Map<z.ZodType, string>();
  const entries: Array<[string, z.ZodType]> = Object.entries(NAMED_REPLIES);
  for (const [id, schema] of entries) {
    schema.register(registry, { id });
    named.set(schema, id);
  }
  const anonymous = (Object.keys(OPERATIONS) as ApiName[]).filter((name) => !named.has(OPERATIONS[name].reply));
  for (const name of anonymous) OPERATIONS[name].reply.register(registry, { id: `${name}.reply` });
  const { schemas } = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any', uri: (id) => `#/components/schemas/${id}` });
  const components = Object.fromEntries(Object.entries(schemas).map(([id, schema]) => [id, strip(schema as Json)]));
  return { components, replyOf: (name) => ref(named.get(OPERATIONS[name].reply) ?? `${name}.reply`) };
}

/** An operation's input as JSON Schema, as clients send it (the input side of transforms). */
export const inputSchema = (schema: z.ZodType): { properties?: Record<string, Json>; required?: string[] } =>
  z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, Json>; required?: string[] };

const WIRE_HABITS = `The API of the original platform, as old clients call it. Parameters come from the query string
and the body together (url-encoded, multipart or a flat JSON object); names match case-insensitively;
\`oauth_token\` is the same parameter as \`access_token\`; numbers may be written \`40\`, \`-3.70\` or \`1.0E-4\`;
lists of ids are comma-separated (\`1,7\`); an empty value (\`&desc=\`) means null, which deletes a value where the
operation allows it, and "not given" elsewhere. Every error is \`{code, description, message?, parameter?}\` with
HTTP status \`code\`.`;

/**
 * The OpenAPI 3.1 description of the API, generated from its one declaration
 * (shared/api/operations.ts): paths, verbs, parameters and bodies from the input schemas, replies
 * from the reply schemas, who may call each operation, and every refusal each may answer.
 */
export function openApiDocument(): Json {
  const names = Object.keys(OPERATIONS) as ApiName[];
  const replies = replySchemas();
  const paths: Record<string, Record<string, Json>> = {};
  for (const name of names) {
    const op = OPERATIONS[name];
    const path = `/${op.path}.json`;
    const input = inputSchema(op.input);
    const pathNames = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const fields = Object.entries(input.properties ?? {}).filter(([key]) => !pathNames.includes(key));
    const required = new Set(input.required ?? []);
    const errors = errorsOf(op);
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of errors) byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
    for (const verb of op.verbs) {
      const inQuery = verb === 'GET' || fields.length === 0;
      const body = { type: 'object', properties: Object.fromEntries(fields), required: fields.map(([k]) => k).filter((k) => required.has(k)) };
      (paths[path] ??= {})[verb.toLowerCase()] = {
        operationId: op.verbs.length > 1 ? `${name}.${verb.toLowerCase()}` : name,
        summary: op.summary,
        description: `Who may call it: ${ACCESS[op.access]}.`,
        tags: [name.split('.')[0]],
        security: SECURITY[op.access],
        parameters: [
          ...pathNames.map((n) => ({ name: n, in: 'path', required: true, schema: input.properties?.[n] ?? { type: 'string' } })),
          ...(inQuery
            ? fields.map(([key, schema]) => ({
                name: key,
                in: 'query',
                required: required.has(key),
                schema,
                ...(schema['type'] === 'array' ? { style: 'form', explode: false } : {}),
              }))
            : []),
        ],
        ...(inQuery
          ? {}
          : {
              requestBody: {
                required: true,
                content: {
                  'application/x-www-form-urlencoded': { schema: body },
                  'multipart/form-data': { schema: body },
                  'application/json': { schema: body },
                },
              },
            }),
        responses: {
          '200': {
            description: 'Done',
            content: { 'application/json': { schema: replies.replyOf(name) } },
            ...(op.headers
              ? { headers: Object.fromEntries(Object.entries(op.headers).map(([h, description]) => [h, { description, schema: { type: 'string' } }])) }
              : {}),
          },
          ...Object.fromEntries(
            [...byStatus].map(([status, codes]) => [
              String(status),
              {
                description: refusals(codes),
                content: { 'application/json': { schema: ref('Error') } },
              },
            ]),
          ),
        },
      };
    }
  }
  return {
    openapi: '3.1.0',
    info: { title: 'POI & Membership API', version: '1', description: WIRE_HABITS },
    servers: [{ url: '/1' }],
    components: {
      schemas: replies.components,
      securitySchemes: {
        access_token: { type: 'apiKey', in: 'query', name: 'access_token', description: 'A member or administrator token' },
        oauth_token: { type: 'apiKey', in: 'query', name: 'oauth_token', description: 'The same token, as the POI calls of old clients name it' },
        api_key: { type: 'apiKey', in: 'query', name: 'api_key', description: "The client application's id" },
      },
    },
    paths,
  };
}
