import { createCore, type Core, type CoreOptions } from '../../main/core/service.js';
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

/** The real core on a fresh :memory: database with a pinned clock. */
export function testCore(options: Partial<CoreOptions> = {}): Core & { clock: PinnedClock } {
  const clock = options.clock instanceof PinnedClock ? options.clock : new PinnedClock();
  const core = createCore({ file: ':memory:', ...options, clock });
  return Object.assign(core, { clock });
}
