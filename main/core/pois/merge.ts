import type { Database, Statement } from 'better-sqlite3';
import type { DuplicatePair, PoiReply } from '../../../shared/wire.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { CONSOLE, type WritePath } from '../store/write-path.js';
import { possibleDuplicates } from './duplicates.js';
import type { PoiStore } from './poi-store.js';
import { poiNotFound, type Pois } from './pois.js';

/** How many POIs one look for pairs walks (in id order) before it answers with where to go on. */
const SCAN = 20_000;
/** The most pairs one page gives. */
const PAIRS = 100;

/**
 * Possible duplicates of a whole client, two by two, and merging them: the kept POI stays as it
 * is, takes the other's open reports and history, and the other is deleted (its tombstone keeps
 * it, and undoing that delete brings it back).
 */
export class Merges {
  private readonly page: Statement<[string, number, number], { id: number; name: string; lat: number; lng: number }>;
  private readonly moveReports: Statement<[number, number]>;
  private readonly link: Statement<[number, number, string, number]>;
  private readonly relink: Statement<[number, number]>;

  constructor(
    db: Database,
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly store: PoiStore,
    private readonly pois: Pois,
  ) {
    this.page = db.prepare('SELECT id, name, lat, lng FROM pois WHERE client_id = ? AND id > ? ORDER BY id LIMIT ?');
    this.moveReports = db.prepare('UPDATE warnings SET poi_id = ? WHERE poi_id = ?');
    this.link = db.prepare('INSERT OR REPLACE INTO poi_merges (merged_id, into_id, client_id, at) VALUES (?, ?, ?, ?)');
    this.relink = db.prepare('UPDATE poi_merges SET into_id = ? WHERE into_id = ?');
  }

  /**
   * Pairs of the client's POIs within 50 m with similar names, each pair once (the lower id
   * first), walking POIs after `after` in id order: at most 100 pairs, and at most 20,000 POIs
   * a call (one R*Tree box query each); `next` is where to go on, null at the end.
   */
  pairs(clientId: string, after = 0): { pairs: DuplicatePair[]; next: number | null } {
    const pairs: DuplicatePair[] = [];
    const rows = this.page.all(clientId, after, SCAN);
    for (const a of rows) {
      // The add form's own check (duplicates.ts), keeping the higher ids: each pair once.
      for (const b of possibleDuplicates(this.store, clientId, a, { exceptId: a.id })) {
        if (b.id > a.id) pairs.push({ a: { id: a.id, name: a.name }, b: { id: b.id, name: b.name }, distance_m: b.distance_m });
      }
      if (pairs.length >= PAIRS) return { pairs, next: a.id };
    }
    return { pairs, next: rows.length === SCAN ? rows.at(-1)!.id : null };
  }

  /** Keeps `keep`, moves `other`'s open reports and history to it, and deletes `other`: one write, all or nothing. */
  merge(clientId: string, keep: number, other: number): PoiReply {
    if (keep === other) throw new ServiceError('INVALID_PARAMETER', 'a POI cannot be merged with itself', 'other');
    this.writes.now(CONSOLE, () => {
      if (!this.store.get(clientId, keep)) throw poiNotFound(keep);
      if (!this.store.get(clientId, other)) throw new ServiceError('NOT_FOUND', `no POI ${other} in this client application`, 'other');
      this.moveReports.run(keep, other);
      this.relink.run(keep, other);
      this.link.run(other, keep, clientId, this.clock.now());
      this.store.delete(clientId, other);
    });
    return this.pois.get(clientId, keep);
  }
}
