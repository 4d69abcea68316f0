import type { FastifyInstance, FastifyReply } from 'fastify';
import { API } from '../../shared/api/operations.js';
import { errorBody, type ErrorBody } from '../../shared/errors.js';
import { resolveOperation } from './api-runner.js';

/**
 * Faults on purpose (docs/devices.md#faults-on-purpose), as Mockoon offers them: rules that slow
 * down, fail or drop the API's requests, so that a developer can watch an app's error paths.
 * Off unless `serve --fault` gives rules; every reply a rule touched says so in FAULT_HEADER.
 */

/** The header each reply a fault rule touched carries, naming the rule. */
export const FAULT_HEADER = 'X-Fault-Injected';
/** The statuses a rule may answer, each with the error the API itself answers with it. */
const FAULT_ERRORS = { 500: 'INTERNAL', 503: 'STORAGE_BUSY', 429: 'TOO_MANY_REQUESTS' } as const;
type FaultStatus = keyof typeof FAULT_ERRORS;
/** Longest latency a rule may add: longer, and the client's own timeout is what gets tested. */
export const MAX_FAULT_LATENCY_MS = 60_000;
/** The Retry-After of a 429 or 503 a rule answers, in seconds. */
const FAULT_RETRY_AFTER_S = 1;
const ALL = '*';
const OPERATIONS = new Set<string>(Object.values(API).map((op) => op.path));
export const FAULT_SYNTAX = 'OPERATION|*:latency=MS[-MS]ms[@P%], OPERATION|*:status=500|503|429[@P%] or OPERATION|*:drop[@P%]';

export type FaultRule = {
  /** As written: what FAULT_HEADER and the listener's status show. */
  text: string;
  /** An operation's path below /1/ without .json (`pois/get`), or `*` for all. */
  operation: string;
  /** Share of the requests it touches, 0 to 1. */
  share: number;
} & ({ kind: 'latency'; minMs: number; maxMs: number } | { kind: 'status'; status: FaultStatus } | { kind: 'drop' });

const RULE = /^([^:\s]+):(latency|status|drop)(?:=([^@]+))?(?:@(\d+(?:\.\d+)?)%)?$/;

/** Reads one rule; throws, in plain words, what is wrong with a malformed one. */
export function parseFaultRule(written: string): FaultRule {
  const text = written.trim();
  const refuse = (why: string): never => {
    throw new Error(`the fault rule "${text}" ${why}; write ${FAULT_SYNTAX}, such as pois/get:status=503@10%`);
  };
  const match = RULE.exec(text);
  if (!match) return refuse('is not a rule');
  const [, operation = '', kind, value, percent] = match;
  if (operation !== ALL && !OPERATIONS.has(operation)) refuse(`names no operation: "${operation}" is not one of the API's (such as pois/get, users/login), nor *`);
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
    const status = Number(value);
    if (!(status in FAULT_ERRORS)) return refuse(`needs status 500, 503 or 429, not "${value ?? ''}"`);
    return { text, operation, share, kind, status: status as FaultStatus };
  }
  if (value !== undefined) refuse('takes no value: write drop or drop@P%');
  return { text, operation, share, kind: 'drop' };
}

/** The error body a status rule answers: the API's own for that status, its message naming the rule. */
export function faultBody(rule: FaultRule & { kind: 'status' }): ErrorBody {
  const body = errorBody(FAULT_ERRORS[rule.status], `fault injected on purpose by the rule ${rule.text} (serve --fault)`);
  return rule.status === 500 ? body : { ...body, retry_after: FAULT_RETRY_AFTER_S };
}

/** The operation a request asks (`GET /1/users/x/show.json` → `users/{id}/show`); undefined when none: its refusal goes on unharmed. */
function operationOf(method: string, url: string): string | undefined {
  try {
    return resolveOperation(method, url.split('?', 1)[0]!).route.operation.path;
  } catch {
    return undefined;
  }
}

/**
 * Applies the rules to every API request Fastify sees (the server sends them all there while
 * rules are on): the latency of every rule that fires, then the first failure that fires.
 * `send` answers an error in the API's shape.
 */
export function mountFaults(
  app: FastifyInstance,
  rules: readonly FaultRule[],
  send: (reply: FastifyReply, body: ErrorBody, retryAfter?: number) => void,
  random: () => number = Math.random,
): void {
  if (rules.length === 0) return;
  app.addHook('onRequest', (request, reply, done) => {
    const operation = operationOf(request.method, request.url);
    if (operation === undefined) return done();
    const fired = rules.filter((r) => (r.operation === ALL || r.operation === operation) && random() < r.share);
    if (fired.length === 0) return done();
    const delay = fired.reduce((ms, r) => (r.kind === 'latency' ? ms + r.minMs + Math.round(random() * (r.maxMs - r.minMs)) : ms), 0);
    const failure = fired.find((r) => r.kind !== 'latency');
    const shown = fired.filter((r) => r.kind === 'latency' || r === failure);
    void reply.header(FAULT_HEADER, shown.map((r) => r.text).join(', '));
    const act = (): void => {
      if (failure === undefined) done();
      else if (failure.kind === 'drop') request.raw.socket.destroy();
      else if (failure.kind === 'status') {
        const body = faultBody(failure);
        send(reply, body, body.retry_after);
      }
    };
    if (delay > 0) setTimeout(act, delay);
    else act();
  });
}
