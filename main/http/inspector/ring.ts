import { INSPECTOR_FOLLOW_MS, INSPECTOR_MAX_BYTES, INSPECTOR_MAX_ENTRIES, type RequestFeed } from '../../../shared/inspector.js';
import { REPLAY_HEADER, type Exchange } from './capture.js';

/** What an entry costs beyond its URL, headers and bodies (the objects that hold them), counted against the byte limit. */
const ENTRY_OVERHEAD = 256;

/** What an entry holds: its URL, headers, the body kept (counted as it was kept, not as announced) and the reply kept. */
function sizeOf(exchange: Exchange): number {
  let size = ENTRY_OVERHEAD + exchange.url.length + exchange.bodyBytes + (exchange.reply?.length ?? 0);
  for (const name in exchange.headers) {
    const value = exchange.headers[name];
    size += name.length + (typeof value === 'string' ? value.length : JSON.stringify(value ?? '').length);
  }
  return size;
}

interface Waiter {
  after: number;
  resolve: (feed: RequestFeed) => void;
  timer: NodeJS.Timeout;
}

/**
 * The listener's recent API requests (docs/devices.md#request-inspector), newest last, bounded
 * by count and by bytes: the oldest go first. Ids grow for the life of the process, so a
 * follower's `after` stays meaningful across a clear and across listeners started again.
 */
export class RequestRing {
  /** Off: nothing is kept, and followers are told so. */
  enabled: boolean;
  /** Oldest first; a dropped entry's slot is emptied at once, so that nothing but the ring's live entries stays reachable. */
  private readonly entries: Array<Exchange | undefined> = [];
  /** Index of the oldest entry in `entries` (dropped ones are left behind it until compacted). */
  private head = 0;
  private bytes = 0;
  private nextId = 1;
  private waiters: Waiter[] = [];
  /** Replays under way (inspector.ts): the nonce their request carries, the id it replays, and its own id once kept. */
  private readonly replays = new Map<string, { of: number; id: number | null }>();
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(options: { enabled?: boolean; maxEntries?: number; maxBytes?: number } = {}) {
    this.enabled = options.enabled ?? true;
    this.maxEntries = options.maxEntries ?? INSPECTOR_MAX_ENTRIES;
    this.maxBytes = options.maxBytes ?? INSPECTOR_MAX_BYTES;
  }

  get size(): number {
    return this.entries.length - this.head;
  }

  get usedBytes(): number {
    return this.bytes;
  }

  /** The newest id handed out (0: none yet). */
  get last(): number {
    return this.nextId - 1;
  }

  add(exchange: Exchange): void {
    if (!this.enabled) return;
    exchange.id = this.nextId++;
    if (this.replays.size > 0) this.markReplay(exchange);
    exchange.bytes = sizeOf(exchange);
    this.entries.push(exchange);
    this.bytes += exchange.bytes;
    while (this.size > this.maxEntries || (this.bytes > this.maxBytes && this.size > 1)) {
      this.bytes -= this.entries[this.head]!.bytes;
      this.entries[this.head] = undefined;
      this.head += 1;
    }
    // Compacted when half of the array is dropped entries: amortized O(1) per request.
    if (this.head > this.maxEntries) {
      this.entries.splice(0, this.head);
      this.head = 0;
    }
    if (this.waiters.length > 0) this.wake();
  }

  /** A replay's request is about to be sent with this nonce in its REPLAY_HEADER. */
  expectReplay(nonce: string, of: number): void {
    this.replays.set(nonce, { of, id: null });
  }

  /** The id the replay's request was kept under (null: not kept); the nonce is forgotten. */
  replayed(nonce: string): number | null {
    const replay = this.replays.get(nonce);
    this.replays.delete(nonce);
    return replay?.id ?? null;
  }

  private markReplay(exchange: Exchange): void {
    const nonce = exchange.headers[REPLAY_HEADER];
    const replay = typeof nonce === 'string' ? this.replays.get(nonce) : undefined;
    if (!replay) return;
    exchange.replayOf = replay.of;
    replay.id = exchange.id;
  }

  get(id: number): Exchange | undefined {
    const oldest = this.entries[this.head];
    if (!oldest || id < oldest.id) return undefined;
    const found = this.entries[this.head + (id - oldest.id)];
    return found?.id === id ? found : undefined;
  }

  /** The entries newer than `after`, newest first. An `after` from before a restart (above the newest) reads all. */
  since(after: number): Exchange[] {
    const from = after > this.last ? 0 : after;
    const found: Exchange[] = [];
    for (let i = this.entries.length - 1; i >= this.head && this.entries[i]!.id > from; i--) found.push(this.entries[i]!);
    return found;
  }

  feed(after: number): RequestFeed {
    return { entries: this.since(after).map((e) => e.summary()), last: this.last, enabled: this.enabled };
  }

  /**
   * The entries newer than `after` at once, or, when there are none, as soon as one comes, or an
   * empty list after `waitMs`: the long poll of `inspector.follow`, which works alike over IPC and HTTP.
   */
  follow(after: number, waitMs = INSPECTOR_FOLLOW_MS): Promise<RequestFeed> {
    const now = this.feed(after);
    if (now.entries.length > 0 || !this.enabled) return Promise.resolve(now);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        after: now.last,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(this.feed(waiter.after));
        }, waitMs),
      };
      // A question held open must not keep a stopping process alive.
      waiter.timer.unref();
      this.waiters.push(waiter);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    // After this request's turn: a burst of requests is answered as one list.
    setImmediate(() => {
      for (const w of waiters) {
        clearTimeout(w.timer);
        w.resolve(this.feed(w.after));
      }
    });
  }

  clear(): void {
    this.entries.length = 0;
    this.head = 0;
    this.bytes = 0;
  }

  /** Answers every follower (an empty list): the listener is going away. */
  release(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) {
      clearTimeout(w.timer);
      w.resolve(this.feed(w.after));
    }
  }
}
