import type { IdSlice } from './poi-store.js';

/**
 * Ids per slice of a scan that no index narrows (a text search over a big client): about 10 ms
 * of LIKE over folded names and descriptions on this machine (README, Performance).
 */
export const SCAN_SLICE = 25_000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Walks `span` in slices of `size` ids (SCAN_SLICE), calling `step` on each until it says it has enough,
 * and lets the event loop answer other requests between two slices: a search that no index
 * narrows still costs its scan, but a plain request beside it waits for one slice, not the whole
 * scan. The first slice runs at once (inside the caller's read transaction, if any); each later
 * one is a statement of its own, so a write acknowledged meanwhile is seen in the slices after it.
 */
export async function scanInSlices(span: IdSlice, size: number, step: (slice: IdSlice) => boolean): Promise<void> {
  for (let after = span.after; after < span.through; after += size) {
    if (after > span.after) await nextTurn();
    if (step({ after, through: Math.min(span.through, after + size) })) return;
  }
}
