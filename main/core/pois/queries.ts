import { MAX_TOTAL, type ValidNear, type ValidWhere } from '../../../shared/schemas/pois.js';
import type { PoiReply, PossibleDuplicate } from '../../../shared/wire.js';
import { possibleDuplicates, type DuplicateProbe } from './duplicates.js';
import { nearest } from './nearest.js';
import type { PoiRow } from './poi-row.js';
import type { PoiStore, WhereFilter } from './poi-store.js';
import type { Pois } from './pois.js';
import { buildInPieces, scanInSlices, type Slicing } from './sliced-scan.js';

/** Read queries over a client's POIs: by distance, by attributes (a map view is map-view.ts). */
export class PoiQueries {
  constructor(
    private readonly store: PoiStore,
    private readonly pois: Pois,
    private readonly slicing: Slicing,
    /** POIs per piece of a long reply (buildInPieces), built in the slices' lane. */
    private readonly replyPiece: number,
  ) {}

  /**
   * The POIs within `radius` metres (great-circle), nearest first, at most `total`: see nearest.ts.
   * A reply of many POIs is read and built in pieces, each in its turn (sliced-scan.ts): of a
   * dense query of 1,000, the rows and replies cost as much as the search.
   */
  async near(clientId: string, input: ValidNear): Promise<PoiReply[]> {
    // The search ends by reading the rows of its last candidates (about `total`) for their exact
    // positions. When they are few enough for one piece of the reply, it reads their whole rows,
    // which the reply is then built from: each row is read once.
    const whole: { rows?: Map<number, PoiRow> } = {};
    const found = nearest(this.store, clientId, { ...input, total: input.total ?? MAX_TOTAL }, (ids) => {
      if (ids.length > this.replyPiece) return this.store.positions(clientId, ids);
      const rows = this.store.rows(clientId, ids);
      whole.rows = new Map(rows.map((row) => [row.id, row]));
      return rows;
    });
    const ids = found.map((f) => f.poi.id);
    const { rows } = whole;
    if (rows) return this.pois.replies(ids.flatMap((id) => rows.get(id) ?? []));
    return buildInPieces(ids, { size: this.replyPiece, lane: this.slicing.lane }, (piece) => this.pois.replies(this.store.rows(clientId, piece)));
  }

  /**
   * One page of a search and the number of matches: two reads (a text search, each in slices:
   * sliced-scan.ts), so a write committed between them may be in one and not the other.
   */
  async page(
    clientId: string,
    input: { q?: string | undefined; categories?: number[] | undefined; after?: number | undefined; limit: number },
  ): Promise<{ total: number; pois: PoiReply[] }> {
    const filter = { q: input.q || undefined, categories: input.categories?.length ? input.categories : undefined };
    let total = 0;
    if (filter.q === undefined) total = this.store.countWhere(clientId, filter);
    else {
      await scanInSlices(this.store.idSpan(clientId), this.slicing, (slice) => {
        total += this.store.countWhere(clientId, filter, slice);
        return false;
      });
    }
    const rows = await this.scan(clientId, { ...filter, after: input.after, limit: input.limit });
    return { total, pois: this.pois.replies(rows) };
  }

  /**
   * The POIs of this client within 50 m of `probe` with a similar name, nearest first
   * (duplicates.ts): what the add form, add.json and imports flag. `exceptId`: the POI itself.
   */
  duplicates(clientId: string, probe: DuplicateProbe, exceptId?: number): PossibleDuplicate[] {
    return possibleDuplicates(this.store, clientId, probe, { exceptId });
  }

  async where(clientId: string, input: ValidWhere): Promise<PoiReply[]> {
    return this.pois.replies(await this.scan(clientId, { ...input, limit: input.total ?? MAX_TOTAL }));
  }

  /**
   * The rows that pass a filter, by id. Every filter but `q` is narrowed by an index; a text
   * search reads every POI of the client, so it walks them in slices and gives the event loop
   * back between two (sliced-scan.ts).
   */
  private async scan(clientId: string, filter: WhereFilter): Promise<PoiRow[]> {
    if (filter.q === undefined) return this.store.where(clientId, filter);
    const span = this.store.idSpan(clientId);
    const rows: PoiRow[] = [];
    await scanInSlices({ after: Math.max(span.after, filter.after ?? span.after), through: span.through }, this.slicing, (slice) => {
      rows.push(...this.store.where(clientId, { ...filter, ...slice, limit: filter.limit - rows.length }));
      return rows.length >= filter.limit;
    });
    return rows;
  }
}
