import type { Core } from '../core/service.js';

/** A reply already serialized: the listener sends it as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Requests remembered at most (a get.json reply is about 1 KiB); when full, the memo starts over. */
const CAPACITY = 10_000;

interface Remembered {
  bytes: Buffer;
  /** When the token that asked expires (the core's clock); Infinity when it does not. */
  until: number;
}

/**
 * The replies of repeatable reads (operations marked `repeatable` in shared/api/operations.ts) by
 * the request's exact URL, valid until anything at all is committed to the database by any
 * process (core.commitStamp) or the asking token expires. A device that shows a POI asks for it
 * again and again; a hit then costs one statement and a map lookup instead of parsing, the token
 * check, the input's validation, the reads and the serialization.
 *
 * The token needs no check on a hit: a reply is only remembered after the token passed, and a
 * token changes only by being revoked, which is a commit. The URL carries the token, so the memo
 * holds tokens in clear, in this process's memory only, as the token cache does (tokens.ts).
 * Finer-grained freshness (a write to another POI) is the core's reply cache's, underneath.
 */
export class ReplyMemo {
  private readonly entries = new Map<string, Remembered>();
  private stamp = '';
  hits = 0;

  constructor(
    private readonly core: Pick<Core, 'commitStamp' | 'now'>,
    readonly enabled: boolean,
  ) {}

  /** The reply's bytes remembered for this URL, if nothing was committed since and its token is still good. */
  recall(url: string): Buffer | undefined {
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    if (!this.current(this.core.commitStamp()) || entry.until <= this.core.now()) {
      this.entries.delete(url);
      return undefined;
    }
    this.hits += 1;
    return entry.bytes;
  }

  /**
   * Runs `work` (synchronous: nothing may commit between the stamp and the answer) and remembers
   * its reply under `url`, unless `work` says it must not be (it set a header).
   */
  remember(url: string, work: () => { reply: unknown; until: number; keep: boolean }): JsonText {
    const stamp = this.core.commitStamp();
    const { reply, until, keep } = work();
    const text = JSON.stringify(reply);
    if (keep) {
      this.current(stamp);
      if (this.entries.size >= CAPACITY) this.entries.clear();
      this.entries.set(url, { bytes: Buffer.from(text), until });
    }
    return new JsonText(text);
  }

  /** Whether `stamp` is the one the entries were made under; if not, they are dropped and it becomes so. */
  private current(stamp: string): boolean {
    if (stamp === this.stamp) return true;
    this.entries.clear();
    this.stamp = stamp;
    return false;
  }
}
