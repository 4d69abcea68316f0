import type { HeavyLane } from '../heavy-lane.js';
import type { IdSlice } from './poi-store.js';

/**
 * Ids per slice of a scan that no index narrows (a text search over a big client): about 10 ms
 * of LIKE over folded names and descriptions on this machine (docs/performance.md).
 */
export const SCAN_SLICE = 25_000;

/** How scans are cut: ids per slice, and the lane each later slice takes its turn in. */
export interface Slicing {
  size: number;
  lane: Pick<HeavyLane, 'run'>;
}

/**
 * Walks `span` in slices of `slicing.size` ids, calling `step` on each until it says it has
 * enough. The first slice runs at once (inside the caller's read transaction, if any); each later
 * one takes its turn in the heavy lane (heavy-lane.ts), behind the requests that arrived
 * meanwhile: a search that no index narrows still costs its scan, but a plain request beside it
 * waits for one slice, and a heavy one for one slice too, not for the whole scan. Each later slice
 * is a statement of its own, so a write acknowledged meanwhile is seen in the slices after it.
 */
export async function scanInSlices(span: IdSlice, slicing: Slicing, step: (slice: IdSlice) => boolean): Promise<void> {
  for (let after = span.after; after < span.through; after += slicing.size) {
    const slice = { after, through: Math.min(span.through, after + slicing.size) };
    const enough = after === span.after ? step(slice) : await slicing.lane.run(() => step(slice));
    if (enough) return;
  }
}

/**
 * POIs per piece of a long reply: the rows and replies of 250 POIs of a dense near query take
 * about 3 ms here, where its search took 12 ms for 1,000.
 */
export const REPLY_PIECE = 250;

/**
 * `build` over `items`: at once when they make one piece (inside the caller's read transaction,
 * if any), else in pieces of `slicing.size`, each in its turn in the heavy lane, as the slices of
 * a scan take theirs. Even the first piece waits for its turn: the work that found the items (a
 * near query's search) was as long as the pieces together. Each piece is a statement of its own,
 * so a write acknowledged meanwhile is seen by the pieces after it: a POI deleted in between is
 * left out, an updated one is answered as it now is.
 */
export async function buildInPieces<T, R>(items: readonly T[], slicing: Slicing, build: (piece: readonly T[]) => R[]): Promise<R[]> {
  if (items.length <= slicing.size) return build(items);
  const out: R[] = [];
  for (let from = 0; from < items.length; from += slicing.size) {
    const piece = items.slice(from, from + slicing.size);
    out.push(...(await slicing.lane.run(() => build(piece))));
  }
  return out;
}
