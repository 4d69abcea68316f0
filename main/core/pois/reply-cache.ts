import type { PoiReply } from '../../../shared/wire.js';
import { AskedBefore } from './asked-before.js';
import type { ChangeReader } from './change-feed.js';

/** Replies kept at most: about 1.5 KiB each, so a few MiB; past it, the oldest stored goes. */
const CAPACITY = 10_000;

/**
 * Whole POI replies by id, for get.json: a device that shows a POI asks for it again and again,
 * and a reply costs three statements and an object per field to build.
 *
 * A POI is stored once it has been asked twice (asked-before.ts): a walk through every id, or ids
 * asked once, cost a slot of a table and no entry. Freshness comes from the change log
 * (change-feed.ts), read only where it matters: before a hit and before storing, inside the
 * caller's read transaction, paced by the statement form of the commit stamp (which that
 * transaction's token check reads too), so that a look sees exactly the snapshot the reply is
 * built from; the rows appended since drop the POIs they name, or everything.
 *
 * A reply is shared by every request that reads it and is not frozen (freezing each one cost more
 * than a hit saves when ids are not asked again): it goes straight to the serializer, and no
 * caller changes it (test/core/reply-cache.test.ts freezes one and reads it through every path).
 */
export class ReplyCache {
  private readonly entries = new Map<number, { clientId: string; reply: PoiReply }>();
  private readonly asked = new AskedBefore();
  hits = 0;
  misses = 0;

  constructor(
    private readonly changes: ChangeReader,
    private readonly enabled = true,
  ) {}

  /** The reply of POI `id` of `clientId`, built by `build` when it is not known or has changed. */
  reply(clientId: string, id: number, build: () => PoiReply): PoiReply {
    if (!this.enabled) return build();
    if (this.entries.has(id)) {
      this.catchUp();
      const known = this.entries.get(id);
      if (known && known.clientId === clientId) {
        this.hits += 1;
        return known.reply;
      }
    }
    this.misses += 1;
    if (!this.asked.again(id)) return build();
    this.catchUp();
    const reply = build();
    if (this.entries.size >= CAPACITY) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(id, { clientId, reply });
    return reply;
  }

  /** The reply stored for `id`, if any (tests: what callers share). */
  stored(id: number): PoiReply | undefined {
    return this.entries.get(id)?.reply;
  }

  /** Everything goes (tests: a process whose cache holds nothing). */
  clear(): void {
    this.entries.clear();
  }

  private catchUp(): void {
    const changed = this.changes.poll();
    if (changed === undefined) return;
    if (changed === 'all') this.entries.clear();
    else for (const id of changed) this.entries.delete(id);
  }
}
