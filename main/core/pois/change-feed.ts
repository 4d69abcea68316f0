import type { Database, Statement } from 'better-sqlite3';

/**
 * Rows read at most in one look; more (an import, a first pull) and everything goes: reading them
 * would cost more than rebuilding what was dropped.
 */
const MOST_ROWS = 1_000;

/** What tells one row of the change log from another that took its sequence number in another history. */
const MARK = "at || ' ' || entity || ' ' || entity_id";

interface Row {
  seq: number;
  poi: number | null;
  entity: string;
  op: string;
  actor: string;
  mark: string;
}

/**
 * Entities whose creation changes no reply already given and no credential already checked: a
 * token or member that did not exist answered nothing, a category nobody links to is in no reply.
 */
const HARMLESS_CREATES: ReadonlySet<string> = new Set(['token', 'member', 'client', 'category']);

/** Since the last look: nothing, everything may have, or these POIs (ids may repeat). */
export type Changed = undefined | 'all' | readonly number[];

/** What one cache has seen of the change log. */
export interface ChangeReader {
  /**
   * What changed since the previous call. Costs one comparison of the stamp while it has not moved;
   * when it has, one statement over the log's rows appended since.
   */
  poll(): Changed;
}

/**
 * Which POIs changed, from the change log (migration 007), for the caches of get.json
 * (reply-cache.ts, main/http/reply-memo.ts): every write to a POI, its categories and its reports
 * appends a row naming it, in this process or in another on the same file. A cache keeps a reader
 * and drops what each look names, so a write to one POI leaves the others' replies in place.
 *
 * Everything goes when a row is not about one POI (a category renamed: its name is in every reply
 * that lists it; a token revoked or deleted; a member, client or setting changed), when a row was
 * written by sync (a pull also moves a POI's registration time, a column the log leaves out), when
 * more rows came than MOST_ROWS, when a commit came with no new row (a write the log leaves out,
 * by a tool), when the row last seen is no longer the same (the log went back, or a restore by any
 * process put another file's log in place) and after this process's own restore (`forget`). Left
 * out: a write of a column the log leaves out (`updated_at` alone) committed between the same two
 * looks as a logged one.
 */
export class ChangeFeed {
  private readonly since: Statement<[number, number], Row>;
  private readonly last: Statement<[], { seq: number; mark: string }>;
  /** Restores made by this process: every reader drops everything after one. */
  private restores = 0;

  constructor(db: Database) {
    // From the last row seen (to check it is still the same) to the newest, one more than the most.
    this.since = db.prepare<[number, number], Row>(
      `SELECT seq, poi_id AS poi, entity, op, actor_kind AS actor, ${MARK} AS mark FROM changes WHERE seq >= ? ORDER BY seq LIMIT ?`,
    );
    this.last = db.prepare<[], { seq: number; mark: string }>(`SELECT seq, ${MARK} AS mark FROM changes ORDER BY seq DESC LIMIT 1`);
  }

  /**
   * A reader whose looks are paced by `stamp`, which must differ whenever anything was committed
   * since it was last read and be read where the statement that follows sees at least as much (before
   * it, outside a transaction, or inside the same read transaction). `commits` counts commits where
   * it can (store/commit-stamp.ts): a stamp that moved with no new row and no commit drops nothing.
   */
  reader(stamp: () => string, commits: () => number | undefined): ChangeReader {
    let seenStamp: string | undefined;
    let seenCommits: number | undefined;
    let seen = 0;
    let seenMark: string | null = null;
    let restores = this.restores;
    const all = (): 'all' => {
      const top = this.last.get();
      seen = top?.seq ?? 0;
      seenMark = top?.mark ?? null;
      return 'all';
    };
    return {
      poll: () => {
        const now = stamp();
        if (now === seenStamp && restores === this.restores) return undefined;
        const first = seenStamp === undefined;
        seenStamp = now;
        const committed = commits();
        const none = committed !== undefined && committed === seenCommits;
        seenCommits = committed;
        if (restores !== this.restores || first) {
          restores = this.restores;
          return all();
        }
        const rows = this.since.all(seen, MOST_ROWS + 2);
        // The row last seen first (none when the log was empty), then those appended since.
        const anchored = seen === 0 || (rows[0]?.seq === seen && rows[0].mark === seenMark);
        const fresh = seen === 0 ? rows : rows.slice(1);
        // The stamp moves when a writer starts the WAL over too: no row and no commit is no change.
        if (anchored && fresh.length === 0 && none) return [];
        if (!anchored || fresh.length === 0 || fresh.length > MOST_ROWS) return all();
        const pois: number[] = [];
        for (const row of fresh) {
          if (row.actor === 'sync') return all();
          if (row.poi !== null) pois.push(row.poi);
          else if (!(row.op === 'create' && HARMLESS_CREATES.has(row.entity))) return all();
        }
        const newest = fresh[fresh.length - 1]!;
        seen = newest.seq;
        seenMark = newest.mark;
        return pois;
      },
    };
  }

  /** After a restore by this process put other data in place. */
  forget(): void {
    this.restores += 1;
  }
}
