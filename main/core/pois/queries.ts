import { MAX_TOTAL, viewportInput, type ValidNear, type ValidWhere, type ViewportInput } from '../../../shared/schemas/pois.js';
import type { PoiReply, PossibleDuplicate } from '../../../shared/wire.js';
import { validate } from '../errors.js';
import { possibleDuplicates, type DuplicateProbe } from './duplicates.js';
import { splitViewport } from './geo.js';
import { nearest } from './nearest.js';
import type { Marker, PoiStore } from './poi-store.js';
import type { Pois } from './pois.js';

const MARKER_LIMIT = 200_000;

/** Read queries over a client's POIs: by distance, by attributes, by map viewport. */
export class PoiQueries {
  constructor(
    private readonly store: PoiStore,
    private readonly pois: Pois,
  ) {}

  /** The POIs within `radius` metres (great-circle), nearest first, at most `total`: see nearest.ts. */
  near(clientId: string, input: ValidNear): PoiReply[] {
    const found = nearest(this.store, clientId, { ...input, total: input.total ?? MAX_TOTAL });
    return this.pois.replies(this.store.rows(clientId, found.map((f) => f.id)));
  }

  /** One page of a search and the number of matches, read together (one read transaction). */
  page(clientId: string, input: { q?: string | undefined; categories?: number[] | undefined; after?: number | undefined; limit: number }): { total: number; pois: PoiReply[] } {
    const filter = { q: input.q || undefined, categories: input.categories?.length ? input.categories : undefined };
    return {
      total: this.store.countWhere(clientId, filter),
      pois: this.pois.replies(this.store.where(clientId, { ...filter, after: input.after, limit: input.limit })),
    };
  }

  /**
   * The POIs of this client within 50 m of `probe` with a similar name, nearest first
   * (duplicates.ts): what the add form, add.json and imports flag. `exceptId`: the POI itself.
   */
  duplicates(clientId: string, probe: DuplicateProbe, exceptId?: number): PossibleDuplicate[] {
    return possibleDuplicates(this.store, clientId, probe, exceptId);
  }

  where(clientId: string, input: ValidWhere): PoiReply[] {
    return this.pois.replies(this.store.where(clientId, { ...input, limit: input.total ?? MAX_TOTAL }));
  }

  /** Compact markers inside a map viewport, for drawing many POIs at once. */
  markers(clientId: string, raw: ViewportInput): Marker[] {
    const input = validate(viewportInput, raw);
    const limit = input.limit ?? MARKER_LIMIT;
    const out: Marker[] = [];
    for (const box of splitViewport(input)) {
      if (out.length >= limit) break;
      out.push(...this.store.markers(clientId, box, limit - out.length));
    }
    return out;
  }
}
