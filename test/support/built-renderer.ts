import { ensureRenderer } from '../../main/build/renderer.js';

/**
 * vitest's global setup: builds the admin UI once, before any test file runs, when it is missing
 * or stale. `cli serve` builds it too in that case, and test files spawn servers concurrently
 * with start timeouts (the durability test's children): they find it built and start at once.
 */
export default function setup(): void {
  ensureRenderer();
}
