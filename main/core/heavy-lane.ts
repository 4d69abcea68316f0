const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const ignore = (): void => undefined;

/**
 * Work that may be long (a near query over a dense area, a big get_where, a slice of a text
 * search) runs one piece at a time, each after a turn of the event loop: requests that arrived
 * meanwhile (a plain get.json) are read and answered between two pieces, instead of waiting
 * behind all of them. The heavy ones lose nothing: on one thread they would run one after the
 * other anyway.
 *
 * The lane moves on as soon as a piece returns, even when it returns a promise: work that goes on
 * in slices (sliced-scan.ts) queues each later slice again, behind what arrived meanwhile, so a
 * near query sent during a text search waits for one slice of it, not for the whole scan.
 */
export class HeavyLane {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => T | Promise<T>): Promise<T> {
    // Boxed: the lane must not wait for a promise that `work` returns.
    const turn = this.tail.then(nextTurn).then(() => ({ value: work() }));
    this.tail = turn.then(ignore, ignore);
    return turn.then(({ value }) => value);
  }
}
