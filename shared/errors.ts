/**
 * The one error catalog. The core throws these codes, the HTTP listener turns them into
 * `{code, description}` with HTTP status `code`, and IPC answers `{ok: false, error}` with them.
 */
export const ERRORS = {
  MISSING_PARAMETER: { status: 400, description: 'EXCEPTION_MISSING_PARAMETER' },
  INVALID_PARAMETER: { status: 400, description: 'EXCEPTION_INVALID_PARAMETER' },
  AMBIGUOUS_PARAMETER: { status: 400, description: 'EXCEPTION_AMBIGUOUS_PARAMETER' },
  MALFORMED_REQUEST: { status: 400, description: 'EXCEPTION_MALFORMED_REQUEST' },
  UNSUPPORTED_VERSION: { status: 400, description: 'EXCEPTION_UNSUPPORTED_VERSION' },
  UNSUPPORTED_FORMAT: { status: 400, description: 'EXCEPTION_UNSUPPORTED_FORMAT' },
  TOKEN_REQUIRED: { status: 401, description: 'EXCEPTION_TOKEN_REQUIRED' },
  INVALID_TOKEN: { status: 401, description: 'EXCEPTION_INVALID_TOKEN' },
  TOKEN_EXPIRED: { status: 401, description: 'EXCEPTION_TOKEN_EXPIRED' },
  INVALID_API_KEY: { status: 401, description: 'EXCEPTION_INVALID_API_KEY' },
  INVALID_CREDENTIALS: { status: 401, description: 'EXCEPTION_INVALID_CREDENTIALS' },
  FORBIDDEN: { status: 403, description: 'EXCEPTION_FORBIDDEN' },
  IMPLICIT_FLOW_DISABLED: { status: 403, description: 'EXCEPTION_IMPLICIT_FLOW_DISABLED' },
  NOT_FOUND: { status: 404, description: 'EXCEPTION_NOT_FOUND' },
  METHOD_NOT_ALLOWED: { status: 405, description: 'EXCEPTION_METHOD_NOT_ALLOWED' },
  REQUEST_TIMEOUT: { status: 408, description: 'EXCEPTION_REQUEST_TIMEOUT' },
  ALREADY_EXISTS: { status: 409, description: 'EXCEPTION_ALREADY_EXISTS' },
  CONFLICT: { status: 409, description: 'EXCEPTION_CONFLICT' },
  BACKUP_REFUSED: { status: 422, description: 'EXCEPTION_BACKUP_REFUSED' },
  PORT_UNAVAILABLE: { status: 409, description: 'EXCEPTION_PORT_UNAVAILABLE' },
  PAYLOAD_TOO_LARGE: { status: 413, description: 'EXCEPTION_PAYLOAD_TOO_LARGE' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, description: 'EXCEPTION_UNSUPPORTED_MEDIA_TYPE' },
  TOO_MANY_REQUESTS: { status: 429, description: 'EXCEPTION_TOO_MANY_REQUESTS' },
  INTERNAL: { status: 500, description: 'EXCEPTION_INTERNAL' },
  TILE_SERVER_UNREACHABLE: { status: 502, description: 'EXCEPTION_TILE_SERVER_UNREACHABLE' },
  SYNC_FAILED: { status: 502, description: 'EXCEPTION_SYNC_FAILED' },
  TOO_MANY_CONNECTIONS: { status: 503, description: 'EXCEPTION_TOO_MANY_CONNECTIONS' },
  STORAGE_FULL: { status: 503, description: 'EXCEPTION_STORAGE_FULL' },
  STORAGE_BUSY: { status: 503, description: 'EXCEPTION_STORAGE_BUSY' },
  STORAGE_UNAVAILABLE: { status: 503, description: 'EXCEPTION_STORAGE_UNAVAILABLE' },
} as const satisfies Record<string, { status: number; description: `EXCEPTION_${string}` }>;

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
