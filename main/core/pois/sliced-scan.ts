import type { HeavyLane } from '../heavy-lane.js';
import type { IdSlice } from './poi-store.js';

/**
 * Ids per slice of a scan that no index narrows (a text search over a big client): about 10 ms
 * of LIKE over folded names and descriptions on this machine (README, Performance).
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
