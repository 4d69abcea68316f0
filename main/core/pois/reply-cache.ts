import type { Database, Statement } from 'better-sqlite3';
import type { PoiReply } from '../../../shared/wire.js';

/** Replies kept at most: about 1.5 KiB each, so a few MiB; when full, the cache starts over. */
const CAPACITY = 10_000;

interface Logged {
  seq: number;
  poi_id: number | null;
  entity: string;
}

/**
 * Whole POI replies by id, for get.json: a device that shows a POI asks for it again and again,
 * and a reply costs a read transaction, three statements and an object per field to build.
 *
 * Freshness comes from the change log (migration 007), which every write to a POI, its category
 * links and its reports appends to, in this process or in another on the same file, and every
 * category rename too. Each lookup reads the log's last sequence number (one step down the
 * rowid's B-tree, inside the caller's read transaction); when it has moved, the rows appended
 * since are read once and the POIs they name dropped, or everything when a category changed
 * (its name is in every reply that lists it). A log that went back (a restored backup), or a
 * restore in this process, empties the cache.
 *
 * Replies are frozen: they are shared by every request that reads them.
 */
export class ReplyCache {
  private readonly entries = new Map<number, { clientId: string; reply: PoiReply }>();
  private readonly top: Statement<[], number | null>;
  private readonly since: Statement<[number], Logged>;
  private seen = 0;
  hits = 0;
  misses = 0;

  constructor(db: Database) {
    this.top = db.prepare<[], number | null>('SELECT max(seq) FROM changes').pluck();
    this.since = db.prepare<[number], Logged>(
      "SELECT seq, poi_id, entity FROM changes WHERE seq > ? AND (poi_id IS NOT NULL OR entity = 'category') ORDER BY seq",
    );
  }

  /** The reply of POI `id` of `clientId`, built by `build` when it is not known or has changed. */
  reply(clientId: string, id: number, build: () => PoiReply): PoiReply {
    this.catchUp();
    const known = this.entries.get(id);
    if (known && known.clientId === clientId) {
      this.hits += 1;
      return known.reply;
    }
    this.misses += 1;
    const reply = deepFreeze(build());
    if (this.entries.size >= CAPACITY) this.entries.clear();
    this.entries.set(id, { clientId, reply });
    return reply;
  }

  /** After a restore put other data in place. */
  clear(): void {
    this.entries.clear();
    this.seen = 0;
  }

  private catchUp(): void {
    const top = this.top.get() ?? 0;
    if (top === this.seen) return;
    if (top < this.seen || this.entries.size === 0) {
      this.entries.clear();
    } else {
      for (const row of this.since.iterate(this.seen)) {
        if (row.poi_id === null) {
          this.entries.clear();
          break;
        }
        this.entries.delete(row.poi_id);
      }
    }
    this.seen = top;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
