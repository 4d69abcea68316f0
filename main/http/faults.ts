import type { FastifyInstance, FastifyReply } from 'fastify';
import { errorBody, type ErrorBody } from '../../shared/errors.js';
import { ALL_OPERATIONS, FAULT_ERRORS, type FaultRule } from '../../shared/faults.js';
import { resolveOperation } from './api-runner.js';

/**
 * Faults on purpose (docs/devices.md#faults-on-purpose), as Mockoon offers them: rules that slow
 * down, fail or drop the API's requests, so that a developer can watch an app's error paths.
 * Off unless `serve --fault` or the listener settings (the Listener panel) give rules; every
 * reply a rule touched says so in FAULT_HEADER. The rules' syntax is shared/faults.ts's.
 */

/** The header each reply a fault rule touched carries, naming the rule. */
export const FAULT_HEADER = 'X-Fault-Injected';
/** The Retry-After of a 429 or 503 a rule answers, in seconds. */
const FAULT_RETRY_AFTER_S = 1;

/** The error body a status rule answers: the API's own for that status, its message naming the rule. */
export function faultBody(rule: FaultRule & { kind: 'status' }): ErrorBody {
  const body = errorBody(FAULT_ERRORS[rule.status], `fault injected on purpose by the rule ${rule.text} (Listener panel or serve --fault)`);
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
 * `rules` is read on each request, so that a change applies to the next one without a restart;
 * with no `rules` at all no hook is added. `send` answers an error in the API's shape.
 */
export function mountFaults(
  app: FastifyInstance,
  rules: (() => readonly FaultRule[]) | undefined,
  send: (reply: FastifyReply, body: ErrorBody, retryAfter?: number) => void,
  random: () => number = Math.random,
): void {
  if (rules === undefined) return;
  app.addHook('onRequest', (request, reply, done) => {
    const now = rules();
    if (now.length === 0) return done();
    const operation = operationOf(request.method, request.url);
    if (operation === undefined) return done();
    const fired = now.filter((r) => (r.operation === ALL_OPERATIONS || r.operation === operation) && random() < r.share);
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
