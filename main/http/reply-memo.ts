import type { CallerKind } from '../../shared/inspector.js';
import { AskedBefore, hashText } from '../core/pois/asked-before.js';
import type { ChangeReader } from '../core/pois/change-feed.js';
import type { Core } from '../core/service.js';

/** A reply already serialized: the listener sends it as it is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * What the memo holds at most, URLs and replies together (a get.json is about 1 KiB of each);
 * past it, the oldest stored go. Bytes, not entries: unknown parameters are ignored, so a URL can
 * be padded to the header limit.
 */
const CAPACITY_BYTES = 16 * 1024 * 1024;

export interface Remembered {
  bytes: Buffer;
  /** When the token that asked expires (the core's clock); Infinity when it does not. */
  until: number;
  /** What authenticated the request that was answered (the request log and inspector say it of every hit). */
  caller: CallerKind;
  /** The POI the reply is about; undefined when it is about none (dropped at any change). */
  poi: number | undefined;
}

/** What a remembered read answered, as the runner tells it. */
export interface Answered {
  reply: unknown;
  until: number;
  /** False when the reply must not be remembered (the handler set a header). */
  keep: boolean;
  caller: CallerKind;
  poi: number | undefined;
}

/**
 * The replies of repeatable reads (operations marked `repeatable` in shared/api/operations.ts) by
 * the request's exact URL, serialized. A device that shows a POI asks for it again and again; a
 * hit then costs one `pread` and a map lookup instead of parsing, the token check, the input's
 * validation, the reads and the serialization.
 *
 * A URL is stored once it has been asked twice (core/pois/asked-before.ts): a URL asked once, or
 * a walk through every id, costs a hash and a slot of a table, not a copy of the reply. Each entry
 * keeps the POI it answered; before a hit, and before what will be stored is read, the memo asks
 * the change log what changed since its last look (core/pois/change-feed.ts: nothing to read while
 * the commit stamp, one `pread`, has not moved) and drops the URLs of the POIs named, or all of
 * them: a write to one POI, by any process, leaves the others' replies, and anything else (a token
 * revoked or deleted, a category renamed, a restore) drops everything. A token that expires is
 * refused on its own entry's clock.
 *
 * The token needs no check on a hit: a reply is only remembered after the token passed, and a
 * token changes only by being revoked or deleted, each a logged change that drops everything. The
 * URL carries the token, so the memo holds tokens in clear, in this process's memory only, as the
 * token cache does (tokens.ts).
 */
export class ReplyMemo {
  private readonly entries = new Map<string, Remembered>();
  /** The URLs remembered for each POI (a POI is asked by several tokens, or parameters in another order). */
  private readonly byPoi = new Map<number | undefined, Set<string>>();
  private readonly asked = new AskedBefore();
  private readonly changes: ChangeReader | undefined;
  private bytes = 0;
  hits = 0;

  constructor(
    private readonly core: Pick<Core, 'poiChanges' | 'now'>,
    readonly enabled: boolean,
  ) {
    this.changes = enabled ? core.poiChanges() : undefined;
  }

  /** The reply remembered for this URL, if nothing it answered changed since and its token is still good. */
  recall(url: string): Remembered | undefined {
    if (!this.entries.has(url)) return undefined;
    this.catchUp();
    const entry = this.entries.get(url);
    if (!entry) return undefined;
    if (entry.until <= this.core.now()) {
      this.forget(url, entry);
      return undefined;
    }
    this.hits += 1;
    return entry;
  }

  /**
   * Runs `work` (synchronous: nothing may commit between the memo's look at the log and the
   * answer) and remembers its reply under `url` when the URL was asked before, unless `work` says
   * it must not be (it set a header).
   */
  remember(url: string, work: () => Answered): JsonText {
    const admitted = this.asked.again(hashText(url));
    // Before the read: what it reads is then at least as new as what the memo has seen of the log.
    if (admitted) this.catchUp();
    const { reply, until, keep, caller, poi } = work();
    if (reply instanceof Promise) throw new Error('a repeatable operation must answer synchronously');
    const text = JSON.stringify(reply);
    if (admitted && keep) {
      const previous = this.entries.get(url);
      if (previous) this.forget(url, previous);
      const bytes = Buffer.from(text);
      this.bytes += url.length + bytes.length;
      while (this.bytes > CAPACITY_BYTES && this.entries.size > 0) {
        const [oldest, entry] = this.entries.entries().next().value!;
        this.forget(oldest, entry);
      }
      this.entries.set(url, { bytes, until, caller, poi });
      const urls = this.byPoi.get(poi);
      if (urls) urls.add(url);
      else this.byPoi.set(poi, new Set([url]));
    }
    return new JsonText(text);
  }

  private catchUp(): void {
    const changed = this.changes?.poll();
    if (changed === undefined) return;
    if (changed === 'all') {
      this.entries.clear();
      this.byPoi.clear();
      this.bytes = 0;
      return;
    }
    // What answered no POI goes with any change.
    for (const poi of [undefined, ...changed]) {
      for (const url of [...(this.byPoi.get(poi) ?? [])]) this.forget(url, this.entries.get(url)!);
    }
  }

  private forget(url: string, entry: Remembered): void {
    this.entries.delete(url);
    this.bytes -= url.length + entry.bytes.length;
    const urls = this.byPoi.get(entry.poi);
    urls?.delete(url);
    if (urls?.size === 0) this.byPoi.delete(entry.poi);
  }
}
