/**
 * The longest stretch the event loop was held while `work` ran: the widest gap between two turns
 * of a `setImmediate` ticker, and the stretch from its last turn to the end (work that never
 * gives the loop back lets no turn run at all).
 */
export async function longestHold<T>(work: () => Promise<T>): Promise<{ value: T; longestMs: number }> {
  let longest = 0;
  let last = performance.now();
  let ticking = true;
  const tick = (): void => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  try {
    const value = await work();
    return { value, longestMs: Math.max(longest, performance.now() - last) };
  } finally {
    ticking = false;
  }
}
