import type { ZodError } from 'zod';
import { errorBody, type ErrorBody, type ErrorCode } from '../../shared/errors.js';

/** A refusal the caller can act on; anything else escaping the core is a bug. */
export class ServiceError extends Error {
  retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly parameter?: string,
    /** What it came from, for whoever debugs it (never sent: toBody says only the message). */
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ServiceError';
  }

  toBody(): ErrorBody {
    const body = errorBody(this.code, this.message, this.parameter);
    if (this.retryAfterSeconds !== undefined) body.retry_after = this.retryAfterSeconds;
    return body;
  }
}

const missing = (parameter: string): ServiceError =>
  new ServiceError('MISSING_PARAMETER', `${parameter} is required`, parameter);

export const invalid = (parameter: string, reason: string): ServiceError =>
  new ServiceError('INVALID_PARAMETER', `${parameter} ${reason}`, parameter);

/** What the input holds at a path, undefined when any step is missing. */
function at(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const step of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[step];
  }
  return value;
}

/**
 * The first failed rule of a zod schema keyed by wire names, as the error a client sees. `input`
 * is what was checked: what it holds at the failing path tells a missing parameter (absent) from
 * an empty one (null) and from a wrong one (zod does not repeat the input in its issues).
 */
export function fromZod(error: ZodError, input?: unknown): ServiceError {
  const issue = error.issues[0];
  // The last named step of the path: `categories` in ['fields', 'categories', 0].
  const named = issue?.path.filter((step): step is string => typeof step === 'string') ?? [];
  const parameter = named.length > 0 ? named[named.length - 1]! : 'input';
  const given = issue ? at(input, issue.path) : undefined;
  if (issue?.code === 'invalid_type' && given === undefined) return missing(parameter);
  // An empty wire value arrives as null: say so plainly instead of zod's type talk.
  if (issue?.code === 'invalid_type' && given === null) return invalid(parameter, 'must not be empty');
  if (issue?.code === 'custom' && issue.params?.['missing'] === true) {
    return new ServiceError('MISSING_PARAMETER', `${parameter} ${issue.message}`, parameter);
  }
  return invalid(parameter, issue?.message ?? 'is invalid');
}

/** Parses with a schema and turns a failure into INVALID_PARAMETER / MISSING_PARAMETER. */
export function validate<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: ZodError } }, input: unknown): T {
  const result = schema.safeParse(input);
  if (!result.success) throw fromZod(result.error, input);
  return result.data;
}

/**
 * A failure of the storage under the database, told apart from a bug: the disk is full, the
 * database is locked by another process for longer than the busy timeout, or the file cannot be
 * read or written (an I/O error, a read-only file system, a damaged page). The service keeps
 * answering reads; the write that met it changed nothing (its transaction was rolled back).
 */
export function storageError(error: unknown): ServiceError | undefined {
  const code = typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : '';
  if (!code.startsWith('SQLITE_')) return undefined;
  if (code === 'SQLITE_FULL') {
    return new ServiceError('STORAGE_FULL', 'the disk holding the database is full; nothing was written. Free some space and try again');
  }
  if (code === 'SQLITE_BUSY' || code.startsWith('SQLITE_BUSY_') || code === 'SQLITE_LOCKED' || code.startsWith('SQLITE_LOCKED_')) {
    const busy = new ServiceError('STORAGE_BUSY', 'another program is holding the database; nothing was written. Try again');
    busy.retryAfterSeconds = 1;
    return busy;
  }
  if (/^SQLITE_(IOERR|READONLY|CANTOPEN|CORRUPT|NOTADB|PROTOCOL)/.test(code)) {
    return new ServiceError('STORAGE_UNAVAILABLE', `the database file cannot be read or written (${code}); nothing was written`);
  }
  return undefined;
}

/** Whether a write failed for want of space (a full disk, or a quota spent). */
export const isDiskFull = (error: unknown): boolean => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
};
