import { MAX_TOTAL, nearInput, viewportInput, whereInput, type NearInput, type ViewportInput, type WhereInput } from '../../../shared/schemas/pois.js';
import type { PoiReply } from '../../../shared/wire.js';
import { validate } from '../errors.js';
import { boxesAround, metresBetween, splitViewport } from './geo.js';
import type { Marker, PoiStore } from './poi-store.js';
import type { Pois } from './pois.js';

/** Where the expanding search of `near` starts, in metres. */
const FIRST_RING_M = 500;
const MARKER_LIMIT = 200_000;

/** Read queries over a client's POIs: by distance, by attributes, by map viewport. */
export class PoiQueries {
  constructor(
    private readonly store: PoiStore,
    private readonly pois: Pois,
  ) {}

  /**
   * The POIs within `radius` metres (great-circle), nearest first, at most `total`. The search
   * grows a ring from 500 m, quadrupling, until it holds `total` POIs or reaches the radius:
   * once a ring of radius r holds `total`, the nearest `total` are all inside it.
   */
  near(clientId: string, raw: NearInput): PoiReply[] {
    const input = validate(nearInput, raw);
    const limit = input.total ?? MAX_TOTAL;
    let ring = Math.min(input.radius, FIRST_RING_M);
    for (;;) {
      const found: Array<{ id: number; d: number }> = [];
      for (const box of boxesAround(input.lat, input.lng, ring)) {
        for (const p of this.store.candidates(clientId, box, input.categories)) {
          const d = metresBetween(input.lat, input.lng, p.lat, p.lng);
          if (d <= ring) found.push({ id: p.id, d });
        }
      }
      if (found.length >= limit || ring >= input.radius) {
        found.sort((a, b) => a.d - b.d || a.id - b.id);
        return this.pois.replies(this.store.rows(clientId, found.slice(0, limit).map((f) => f.id)));
      }
      ring = Math.min(input.radius, ring * 4);
    }
  }

  where(clientId: string, raw: WhereInput): PoiReply[] {
    const input = validate(whereInput, raw);
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
