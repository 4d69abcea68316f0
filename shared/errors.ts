/**
 * An error as it is declared: what goes on the wire, and when it is answered, said once for the
 * catalog in docs/api.md#errors (main/build/api-docs.ts writes it) and the OpenAPI document's
 * refusals (shared/api/openapi.ts). The texts are Markdown whose links are relative to docs/,
 * where the catalog is; the OpenAPI document names the linked page instead.
 */
export interface ErrorDeclaration {
  status: number;
  description: `EXCEPTION_${string}`;
  /** When the `/1/` API answers it; absent when only the admin console or the CLI does. */
  when?: string;
  /** When the admin console or the CLI answers it, beside the API's cases, saying which of them. */
  console?: string;
}

/**
 * The one error catalog. The core throws these codes, the HTTP listener turns them into
 * `{code, description}` with HTTP status `code`, and IPC answers `{ok: false, error}` with them.
 */
export const ERRORS = {
  MISSING_PARAMETER: { status: 400, description: 'EXCEPTION_MISSING_PARAMETER', when: 'a required parameter is absent (or empty)' },
  INVALID_PARAMETER: { status: 400, description: 'EXCEPTION_INVALID_PARAMETER', when: 'a parameter breaks its rule (length, format, range, type)' },
  AMBIGUOUS_PARAMETER: { status: 400, description: 'EXCEPTION_AMBIGUOUS_PARAMETER', when: 'a parameter is given twice with different values' },
  MALFORMED_REQUEST: {
    status: 400,
    description: 'EXCEPTION_MALFORMED_REQUEST',
    when:
      'unreadable request: bad percent-encoding, invalid UTF-8 or lone surrogates, truncated or boundary-less multipart, file parts, bad JSON, an HTTP/1.1 request without Host, not HTTP at all',
  },
  UNSUPPORTED_VERSION: { status: 400, description: 'EXCEPTION_UNSUPPORTED_VERSION', when: 'the version in the path is not `1`' },
  UNSUPPORTED_FORMAT: {
    status: 400,
    description: 'EXCEPTION_UNSUPPORTED_FORMAT',
    when: 'the format in the path is not `json`',
    console: 'admin console: a map package file that cannot be imported (the message says why; `parameter` is `file`)',
  },
  TOKEN_REQUIRED: { status: 401, description: 'EXCEPTION_TOKEN_REQUIRED', when: 'no `access_token` (nor, for register, `api_key`)' },
  INVALID_TOKEN: {
    status: 401,
    description: 'EXCEPTION_INVALID_TOKEN',
    when:
      'the token is malformed, unknown, or revoked (logout, rotation, member deleted, password changed); also when that happened while a write that waits (a POI add or update being geocoded, a report in the group commit, a member update being hashed) was in flight: the write is then refused, as if the revocation had come first',
  },
  TOKEN_EXPIRED: { status: 401, description: 'EXCEPTION_TOKEN_EXPIRED', when: "the token's `expirationtime` has passed" },
  INVALID_API_KEY: { status: 401, description: 'EXCEPTION_INVALID_API_KEY', when: "the `api_key` names no client application (or not the token's)" },
  INVALID_CREDENTIALS: {
    status: 401,
    description: 'EXCEPTION_INVALID_CREDENTIALS',
    when:
      "login with an unknown user or a wrong password, or whose member was deleted or changed its password while the login was being checked (no token is issued on a password that is no longer the member's); update with a wrong `oldpwd`",
  },
  FORBIDDEN: {
    status: 403,
    description: 'EXCEPTION_FORBIDDEN',
    when: 'a member token on an administrator operation, a member updating another member, a change to a system category, or logout with an administrator token',
  },
  IMPLICIT_FLOW_DISABLED: {
    status: 403,
    description: 'EXCEPTION_IMPLICIT_FLOW_DISABLED',
    when: 'register with an `api_key` whose client does not allow Implicit Flow',
  },
  NOT_FOUND: {
    status: 404,
    description: 'EXCEPTION_NOT_FOUND',
    when: "no such operation; no such member, POI or category in the token's client (`parameter` says which: `poi`, `category`, `categories`)",
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    description: 'EXCEPTION_METHOD_NOT_ALLOWED',
    when:
      'the verb is not accepted by that operation (any verb, CONNECT included). `HEAD` is accepted only where `GET` only reads (get, near, where, history, lists, show); on an operation that writes it is a `405` and writes nothing',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    description: 'EXCEPTION_REQUEST_TIMEOUT',
    when:
      "the request's headers or body did not arrive in time, or an upload stalled (see [Connections](devices.md#connections)); the connection is closed",
  },
  ALREADY_EXISTS: {
    status: 409,
    description: 'EXCEPTION_ALREADY_EXISTS',
    when:
      'register with a username or e-mail already taken in the client; add or rename a category to a name the client already has among its own or the system categories (`parameter: desc`)',
    console: "admin console and CLI: create a client application with another's name (`parameter: name`)",
  },
  CONFLICT: {
    status: 409,
    description: 'EXCEPTION_CONFLICT',
    console:
      'admin console and CLI only: an undo refused because what the change (or the import) wrote was changed since, or a deleted POI is already back, or the import was already undone; the message names the POIs and fields (`parameter: change` or `import`); nothing was changed. Also an import into a client whose import is running, and a restore while an import runs (the message names it)',
  },
  BACKUP_REFUSED: {
    status: 422,
    description: 'EXCEPTION_BACKUP_REFUSED',
    console:
      "admin console and CLI only: a restore refused because the file is not a SQLite database, not this application's, of a newer schema, or damaged (`integrity_check`), or a backup asked of an in-memory database; the message says why; nothing was changed",
  },
  PORT_UNAVAILABLE: {
    status: 409,
    description: 'EXCEPTION_PORT_UNAVAILABLE',
    console:
      'admin console only: the listener cannot listen on the chosen port (in use, or needs administrator rights); the running listener and the saved settings are kept',
  },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'EXCEPTION_PAYLOAD_TOO_LARGE', when: 'the body is over 64 KiB' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    description: 'EXCEPTION_UNSUPPORTED_MEDIA_TYPE',
    when: 'a body of another content type than form, multipart or JSON',
  },
  MISDIRECTED_REQUEST: {
    status: 421,
    description: 'EXCEPTION_MISDIRECTED_REQUEST',
    when: "the `Host` header names neither this computer nor one of its addresses: a page of another site reaching the listener through DNS rebinding (see [Host names](devices.md#host-names)); nothing was run",
    console: 'admin console: the same check, on every request',
  },
  TOO_MANY_REQUESTS: {
    status: 429,
    description: 'EXCEPTION_TOO_MANY_REQUESTS',
    when: 'a rate limit is spent (see [Rate limits](devices.md#rate-limits))',
  },
  INTERNAL: { status: 500, description: 'EXCEPTION_INTERNAL', when: 'a bug; never expected. The listener logs it and keeps serving.' },
  TILE_SERVER_UNREACHABLE: {
    status: 502,
    description: 'EXCEPTION_TILE_SERVER_UNREACHABLE',
    console:
      'admin console only: an online map tile the tile server did not send (unreachable, no answer in 8 s, an error status, not an image) and the tile cache does not hold',
  },
  SYNC_FAILED: {
    status: 502,
    description: 'EXCEPTION_SYNC_FAILED',
    console:
      "admin console only: the central could not be reached, or refused (a revoked device credential, another client application's data); the message says which and why (`parameter: central`, or `url` when no central is set)",
  },
  TOO_MANY_CONNECTIONS: {
    status: 503,
    description: 'EXCEPTION_TOO_MANY_CONNECTIONS',
    when: "too many open connections, in all or from the caller's address (see [Connections](devices.md#connections)); `Retry-After: 1`",
  },
  STORAGE_FULL: {
    status: 503,
    description: 'EXCEPTION_STORAGE_FULL',
    when: 'the disk holding the database is full: nothing was written. Reads go on; writes work again once space is freed, without a restart. Logged.',
  },
  STORAGE_BUSY: {
    status: 503,
    description: 'EXCEPTION_STORAGE_BUSY',
    when: "another program held the database's write lock for longer than 5 s: nothing was written; `Retry-After: 1`. Logged.",
  },
  STORAGE_UNAVAILABLE: {
    status: 503,
    description: 'EXCEPTION_STORAGE_UNAVAILABLE',
    when: 'the database file could not be read or written (an I/O error, a read-only file system, a damaged page): nothing was written. Logged.',
  },
} as const satisfies Record<string, ErrorDeclaration>;

export type ErrorCode = keyof typeof ERRORS;

/** What leaves the process: the wire body of an error, also the `error` of a failed IPC answer. */
export interface ErrorBody {
  code: number;
  description: string;
  message?: string;
  /** The request parameter the error concerns, so a form can show it next to that field. */
  parameter?: string;
  /** Seconds to wait, on TOO_MANY_REQUESTS and STORAGE_BUSY. */
  retry_after?: number;
}

export function errorBody(code: ErrorCode, message?: string, parameter?: string): ErrorBody {
  const entry = ERRORS[code];
  const body: ErrorBody = { code: entry.status, description: entry.description };
  if (message !== undefined) body.message = message;
  if (parameter !== undefined) body.parameter = parameter;
  return body;
}

export const OK_BODY = { code: 200, description: 'OK' } as const;
export type OkBody = typeof OK_BODY;
