import type { z } from 'zod';
import { API, type ApiName, type ApiReply } from '../../shared/api/operations.js';
import type { Credentials } from '../../main/core/api/caller.js';
import { validate } from '../../main/core/errors.js';
import { coreOver, type Core, type CoreOptions } from '../../main/core/service.js';
import { openServices, type Services } from '../../main/core/services.js';
import type { Clock } from '../../main/core/clock.js';

/** A clock that only moves when the test says so. */
export class PinnedClock implements Clock {
  constructor(private t = Date.UTC(2026, 0, 15, 12, 0, 0)) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

/**
 * The real core as transports see it, with its parts within reach: the core's own tests set up
 * and inspect state through them (transports only ever get the `Core`).
 */
export type OpenCore = Core & Services;

export function openCore(options: CoreOptions): OpenCore {
  const services = openServices(options);
  return Object.assign(services, coreOver(services));
}

/** The real core on a fresh :memory: database with a pinned clock. */
export type TestCore = OpenCore & { clock: PinnedClock };

export function testCore(options: Partial<CoreOptions> = {}): TestCore {
  const clock = options.clock instanceof PinnedClock ? options.clock : new PinnedClock();
  return Object.assign(openCore({ file: ':memory:', ...options, clock }), { clock });
}

/**
 * One operation of the API as the listener runs it, without HTTP: the caller resolved from the
 * credentials and checked against the operation's access level, the input checked by its schema.
 */
export async function invokeApi<K extends ApiName>(core: Core, name: K, creds: Omit<Credentials, 'origin'> & { origin?: string }, input: z.input<(typeof API)[K]['input']>): Promise<ApiReply<K>> {
  const caller = core.resolveCaller(API[name].access, { origin: '127.0.0.1', ...creds });
  const handler = core.api[name] as (caller: unknown, input: unknown) => ApiReply<K> | Promise<ApiReply<K>>;
  return handler(caller, validate<unknown>(API[name].input, input));
}
