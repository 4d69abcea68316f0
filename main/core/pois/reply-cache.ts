import type { Database, Statement } from 'better-sqlite3';
import type { PoiReply } from '../../../shared/wire.js';

/** Replies kept at most: about 1.5 KiB each, so a few MiB; when full, the cache starts over. */
const CAPACITY = 10_000;

/** What tells one row of the change log from another that took its sequence number in another history. */
const MARK = "at || ' ' || entity || ' ' || entity_id";

interface Look {
  /** The change log's last row: its sequence number, and what tells it from another row of that number. */
  top: number | null;
  mark: string | null;
  /** The asked POI's last update, null when it is not this client's (or not there). */
  updated: number | null;
}

interface Logged {
  poi_id: number | null;
}

/**
 * Whole POI replies by id, for get.json: a device that shows a POI asks for it again and again,
 * and a reply costs three statements and an object per field to build.
 *
 * Freshness comes from the change log (migration 007), which every write to a POI, its category
 * links and its reports appends to, in this process or in another on the same file, and every
 * category rename too. Each lookup is one statement (inside the caller's read transaction): the
 * log's last row, and the POI's `updated_at`, which also catches the writes the log leaves out
 * (a sync that only moves `updated_at`) and a POI of another client. When the log has moved, the
 * rows appended since drop the POIs they name, or everything when a category changed (its name is
 * in every reply that lists it) or when more rows came than the cache holds (an import: reading
 * them would cost more than rebuilding). When the row the cache last saw is no longer the same
 * (the log went back, or a restore by any process put another file's log in place), everything
 * goes.
 *
 * Replies are frozen: they are shared by every request that reads them.
 */
export class ReplyCache {
  private readonly entries = new Map<number, { clientId: string; updated: number; reply: PoiReply }>();
  private readonly look: Statement<{ id: number; client: string }, Look>;
  private readonly markAt: Statement<[number], string>;
  private readonly since: Statement<[number], Logged>;
  private seen = 0;
  private seenMark: string | null = null;
  hits = 0;
  misses = 0;

  constructor(
    db: Database,
    private readonly enabled = true,
  ) {
    // The log's last row read once (the one-row left side keeps an answer when the log is empty).
    this.look = db.prepare(
      `SELECT last.seq AS top, last.mark AS mark, (SELECT updated_at FROM pois WHERE id = @id AND client_id = @client) AS updated
       FROM (SELECT 1) LEFT JOIN (SELECT seq, ${MARK} AS mark FROM changes ORDER BY seq DESC LIMIT 1) last`,
    );
    this.markAt = db.prepare<[number], string>(`SELECT ${MARK} FROM changes WHERE seq = ?`).pluck();
    this.since = db.prepare<[number], Logged>("SELECT poi_id FROM changes WHERE seq > ? AND (poi_id IS NOT NULL OR entity = 'category')");
  }

  /** The reply of POI `id` of `clientId`, built by `build` when it is not known or has changed. */
  reply(clientId: string, id: number, build: () => PoiReply): PoiReply {
    if (!this.enabled) return build();
    const look = this.look.get({ id, client: clientId }) ?? { top: null, mark: null, updated: null };
    this.catchUp(look.top ?? 0, look.mark);
    const known = this.entries.get(id);
    if (known && known.clientId === clientId && known.updated === look.updated) {
      this.hits += 1;
      return known.reply;
    }
    this.misses += 1;
    const reply = deepFreeze(build());
    if (look.updated !== null) {
      if (this.entries.size >= CAPACITY) this.entries.clear();
      this.entries.set(id, { clientId, updated: look.updated, reply });
    }
    return reply;
  }

  /** After a restore put other data in place. */
  clear(): void {
    this.entries.clear();
    this.seen = 0;
    this.seenMark = null;
  }

  private catchUp(top: number, mark: string | null): void {
    if (top === this.seen && mark === this.seenMark) return;
    const sameHistory = top > this.seen && (this.seen === 0 || this.markAt.get(this.seen) === this.seenMark);
    if (!sameHistory || this.entries.size === 0 || top - this.seen > CAPACITY) this.entries.clear();
    else {
      for (const row of this.since.iterate(this.seen)) {
        if (row.poi_id === null) {
          this.entries.clear();
          break;
        }
        this.entries.delete(row.poi_id);
      }
    }
    this.seen = top;
    this.seenMark = mark;
  }
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
