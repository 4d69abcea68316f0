import fc from 'fast-check';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { history } from '../sync-checker/actions.js';
import { runHistory } from '../sync-checker/history.js';
import { startWorld, type World } from '../sync-checker/world.js';
import { postgresMissing } from '../support/postgres.js';

const missing = postgresMissing();
if (missing) {
  if (process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the sync checker must run here: ${missing}`);
  console.warn(`skipped: the sync checker needs PostgreSQL with PostGIS. ${missing}`);
}

/** CI's budget: this many random histories (`npm run soak` runs thousands). */
const HISTORIES = Number(process.env.POI_CHECKER_HISTORIES ?? 100);

/**
 * The randomized multi-desktop checker (docs/sync.md#what-you-can-count-on): random histories of
 * edits, deletes, undos, imports, members, categories, backups and restores, broken syncs, policy
 * changes and hostile pushes, on 2-4 real desktops (cores on SQLite files) and the central on a
 * real PostgreSQL; then everything synced to quiescence and checked against the oracle
 * (test/sync-checker/oracle.ts).
 * A failure prints its seed and path: `npm run soak -- --seed=S --path P` replays it (a negative seed needs the `=`).
 */
describe.skipIf(missing !== undefined)('the sync checker', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it(`finds no lost edit, no stuck desktop and no divergence in ${HISTORIES} random histories`, async () => {
    const seed = process.env.POI_CHECKER_SEED === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(process.env.POI_CHECKER_SEED);
    await fc.assert(
      fc.asyncProperty(history(), async (h) => {
        const outcome = await runHistory(world, h);
        if (outcome.violations.length > 0) throw new Error(outcome.violations.slice(0, 12).join('\n'));
      }),
      { numRuns: HISTORIES, seed, interruptAfterTimeLimit: 8 * 60_000, markInterruptAsFailure: false },
    );
  }, 10 * 60_000);
});
