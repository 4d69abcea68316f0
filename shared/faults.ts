import { z } from 'zod';
import { API } from './api/operations.js';
import type { ErrorCode } from './errors.js';

/**
 * Faults on purpose (docs/devices.md#faults-on-purpose): the rules' syntax, read by the listener
 * (main/http/faults.ts applies them), by `serve --fault`, by the listener settings and by the
 * Listener panel, which all check a rule with `parseFaultRule`.
 */

/** The statuses a rule may answer. */
export const FAULT_STATUSES = [500, 503, 429] as const;
export type FaultStatus = (typeof FAULT_STATUSES)[number];
/** Each status with the error the API itself answers with it. */
export const FAULT_ERRORS = { 500: 'INTERNAL', 503: 'STORAGE_BUSY', 429: 'TOO_MANY_REQUESTS' } as const satisfies Record<FaultStatus, ErrorCode>;
/** Longest latency a rule may add: longer, and the client's own timeout is what gets tested. */
export const MAX_FAULT_LATENCY_MS = 60_000;
/** Rules kept in the listener settings at most: each is checked on every request. */
export const MAX_FAULT_RULES = 20;
/** A rule's operation that means every operation. */
export const ALL_OPERATIONS = '*';
/** The operations a rule may name: each `/1/` path without `.json`, in the API's order. */
export const FAULT_OPERATIONS: readonly string[] = [...new Set(Object.values(API).map((op) => op.path))];
export const FAULT_SYNTAX = `OPERATION|*:latency=MS[-MS]ms[@P%], OPERATION|*:status=${FAULT_STATUSES.join('|')}[@P%] or OPERATION|*:drop[@P%]`;
const STATUS_WORDS = `${FAULT_STATUSES.slice(0, -1).join(', ')} or ${FAULT_STATUSES.at(-1)}`;

export type FaultRule = {
  /** As written: what the X-Fault-Injected header and the listener's status show. */
  text: string;
  /** An operation's path below /1/ without .json (`pois/get`), or `*` for all. */
  operation: string;
  /** Share of the requests it touches, 0 to 1. */
  share: number;
} & ({ kind: 'latency'; minMs: number; maxMs: number } | { kind: 'status'; status: FaultStatus } | { kind: 'drop' });

/** A malformed rule: `reason` says what is wrong in plain words, the message also how to write one. */
export class FaultRuleError extends Error {
  constructor(
    readonly rule: string,
    readonly reason: string,
  ) {
    super(`the fault rule "${rule}" ${reason}; write ${FAULT_SYNTAX}, such as pois/get:status=503@10%`);
  }
}

const RULE = /^([^:\s]+):(latency|status|drop)(?:=([^@]+))?(?:@(\d+(?:\.\d+)?)%)?$/;
const OPERATIONS = new Set(FAULT_OPERATIONS);

/** Reads one rule; throws a FaultRuleError saying what is wrong with a malformed one. */
export function parseFaultRule(written: string): FaultRule {
  const text = written.trim();
  const refuse = (why: string): never => {
    throw new FaultRuleError(text, why);
  };
  const match = RULE.exec(text);
  if (!match) return refuse('is not a rule');
  const [, operation = '', kind, value, percent] = match;
  if (operation !== ALL_OPERATIONS && !OPERATIONS.has(operation)) refuse(`names no operation: "${operation}" is not one of the API's (such as pois/get, users/login), nor *`);
  const share = percent === undefined ? 1 : Number(percent) / 100;
  if (!(share > 0 && share <= 1)) refuse('needs a share above 0% and at most 100%');
  if (kind === 'latency') {
    const range = /^(\d+)(?:-(\d+))?ms$/.exec(value ?? '');
    if (!range) return refuse('needs a latency in milliseconds, such as latency=300ms or latency=200-800ms');
    const minMs = Number(range[1]);
    const maxMs = range[2] === undefined ? minMs : Number(range[2]);
    if (maxMs < minMs) refuse('has a latency range whose end is below its start');
    if (maxMs > MAX_FAULT_LATENCY_MS) refuse(`asks for more than ${MAX_FAULT_LATENCY_MS} ms`);
    return { text, operation, share, kind, minMs, maxMs };
  }
  if (kind === 'status') {
    const status = FAULT_STATUSES.find((s) => String(s) === value);
    if (status === undefined) return refuse(`needs status ${STATUS_WORDS}, not "${value ?? ''}"`);
    return { text, operation, share, kind, status };
  }
  if (value !== undefined) refuse('takes no value: write drop or drop@P%');
  return { text, operation, share, kind: 'drop' };
}

/** One rule as kept in the listener settings: its text, trimmed, once `parseFaultRule` accepts it. */
export const faultRule = z.string().transform((written, ctx) => {
  try {
    return parseFaultRule(written).text;
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
    return z.NEVER;
  }
});

export const faultRules = z
  .array(faultRule)
  .max(MAX_FAULT_RULES, `at most ${MAX_FAULT_RULES} fault rules`)
  .transform((list) => [...new Set(list)]);
