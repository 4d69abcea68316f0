/** The core never calls Date.now() itself: tests pin time, and so can the geocode date rule. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
