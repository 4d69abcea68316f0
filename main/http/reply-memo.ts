import type { CallerKind } from '../../shared/inspector.js';
import type { Core } from '../core/service.js';

/** A reply already serialized: the listener sends it as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * What the memo holds at most, URLs and replies together (a get.json is about 1 KiB of each);
 * when full, it starts over. Bytes, not entries: unknown parameters are ignored, so a URL can be
 * padded to the header limit.
 */
const CAPACITY_BYTES = 16 * 1024 * 1024;

export interface Remembered {
  bytes: Buffer;
  /** When the token that asked expires (the core's clock); Infinity when it does not. */
  until: number;
  /** What authenticated the request that was answered (the request log and inspector say it of every hit). */
  caller: CallerKind;
}

/**
 * The replies of repeatable reads (operations marked `repeatable` in shared/api/operations.ts) by
 * the request's exact URL, valid until anything at all is committed to the database by any
 * process (core.commitStamp) or the asking token expires. A device that shows a POI asks for it
 * again and again; a hit then costs one `pread` and a map lookup instead of parsing, the token
 * check, the input's validation, the reads and the serialization.
 *
 * The token needs no check on a hit: a reply is only remembered after the token passed, and a
 * token changes only by being revoked or deleted, each a commit. The URL carries the token, so the memo
 * holds tokens in clear, in this process's memory only, as the token cache does (tokens.ts).
 * Finer-grained freshness (a write to another POI) is the core's reply cache's, underneath.
 */
export class ReplyMemo {
  private readonly entries = new Map<string, Remembered>();
  private stamp = '';
  private bytes = 0;
  hits = 0;

  constructor(
    private readonly core: Pick<Core, 'commitStamp' | 'now'>,
    readonly enabled: boolean,
  ) {}

  /** The reply remembered for this URL, if nothing was committed since and its token is still good. */
  recall(url: string): Remembered | undefined {
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    if (!this.current(this.core.commitStamp()) || entry.until <= this.core.now()) {
      if (this.entries.delete(url)) this.bytes -= url.length + entry.bytes.length;
      return undefined;
    }
    this.hits += 1;
    return entry;
  }

  /**
   * Runs `work` (synchronous: nothing may commit between the stamp and the answer) and remembers
   * its reply under `url`, unless `work` says it must not be (it set a header).
   */
  remember(url: string, work: () => { reply: unknown; until: number; keep: boolean; caller: CallerKind }): JsonText {
    const stamp = this.core.commitStamp();
    const { reply, until, keep, caller } = work();
    // Remembered from the stamp read before it: nothing may commit in between.
    if (reply instanceof Promise) throw new Error('a repeatable operation must answer synchronously');
    const text = JSON.stringify(reply);
    if (keep) {
      this.current(stamp);
      const bytes = Buffer.from(text);
      const size = url.length + bytes.length;
      if (this.bytes + size > CAPACITY_BYTES) this.drop();
      const previous = this.entries.get(url);
      if (previous) this.bytes -= url.length + previous.bytes.length;
      this.entries.set(url, { bytes, until, caller });
      this.bytes += size;
    }
    return new JsonText(text);
  }

  /** Whether `stamp` is the one the entries were made under; if not, they are dropped and it becomes so. */
  private current(stamp: string): boolean {
    if (stamp === this.stamp) return true;
    this.drop();
    this.stamp = stamp;
    return false;
  }

  private drop(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
