/**
 * Requests that may do a lot of synchronous work (a near query over a dense area, a big
 * get_where) run one at a time, each after a turn of the event loop: requests that arrived
 * meanwhile (a plain get.json) are read and answered between two heavy ones, instead of waiting
 * behind all of them. The heavy ones lose nothing: on one thread they would run one after the
 * other anyway.
 */
export class HeavyLane {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(work: () => T | Promise<T>): Promise<T> {
    const turn = this.tail.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(work);
    this.tail = turn.catch(() => undefined);
    return turn;
  }
}
