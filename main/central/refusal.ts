import type { ErrorCode } from '../../shared/errors.js';

/** A request the sync service refuses, with the error code (and so the status) it answers. */
export class Refusal extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}
