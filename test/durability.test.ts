import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addClient, killAllChildren, sleep, startChild, type ChildServer } from './support/child-server.js';
import { checkDatabase, checkServed, startAddLoad, warmUp, type SentPoi } from './support/poi-load.js';
import { prng } from './bench/stats.js';

/**
 * Every write the service acknowledged survives a crash. A child process serves the API on a
 * fresh data folder; 16 loops add POIs as fast as they can; the child is SIGKILLed at a random
 * moment mid-load and started again on the same folder; then every add answered 200 must be
 * there and intact, nothing may exist that was not sent (or was refused), and the database must
 * pass integrity_check. Several rounds, each with its own kill time, on the same database.
 *
 * Rerun a failing schedule with DURABILITY_SEED=<the printed seed>.
 *
 * What a process crash cannot show: the operating system keeps a killed process's written pages,
 * so losing un-fsynced data (synchronous=OFF, a power cut) goes unnoticed here. This catches
 * answers sent before their commit, and corruption by a crash mid-write or mid-checkpoint.
 */

const ROUNDS = 4;
const WORKERS = 16;
const KILL_AFTER_MS: readonly [number, number] = [300, 1500];

/** A seeded generator, so a failing schedule can be replayed. */
const random = prng;

const dirs: string[] = [];
let running: ChildServer | undefined;

afterAll(async () => {
  if (running) await running.crash().catch(() => undefined);
  killAllChildren();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const show = (problems: string[]): string =>
  `${problems.length} problem(s):\n  ${problems.slice(0, 20).join('\n  ')}${problems.length > 20 ? '\n  ...' : ''}`;

describe('durability', () => {
  it(`keeps every acknowledged POI add across ${ROUNDS} SIGKILLs mid-load`, { timeout: 120_000 }, async () => {
    const seed = Number(process.env.DURABILITY_SEED ?? Math.floor(Math.random() * 2 ** 31));
    const rand = random(seed);
    console.log(`durability: seed ${seed} (replay with DURABILITY_SEED=${seed})`);

    const dir = mkdtempSync(join(tmpdir(), 'poi-durability-'));
    dirs.push(dir);
    const file = join(dir, 'poi.sqlite');
    const { admin_token: token } = await addClient(dir, 'durability');

    // Across rounds: every acknowledged add must survive every later crash too.
    const acknowledged = new Map<number, SentPoi>();
    const unanswered: SentPoi[] = [];
    const refused: SentPoi[] = [];
    let counter = 0;

    for (let round = 1; round <= ROUNDS; round++) {
      const [lo, hi] = KILL_AFTER_MS;
      const killAfter = Math.round(lo + rand() * (hi - lo));

      running = await startChild(dir);
      // Acknowledged too, so it must survive like the others.
      const [warmId, warmSent] = await warmUp(running.base, token, `durable-warmup-${round}`);
      acknowledged.set(warmId, warmSent);
      const load = startAddLoad(running.base, token, WORKERS, () => counter++);
      await sleep(killAfter);
      const crashed = running.crash(); // SIGKILL is sent synchronously, before the loops stop
      load.stop();
      await crashed;
      running = undefined;
      const outcome = await load.done;

      expect(
        outcome.refused.map((r) => `${r.sent.name}: ${r.status} ${r.body}`),
        `round ${round}: adds answered with an error during the load`,
      ).toEqual([]);
      expect(
        outcome.acknowledged.size,
        `round ${round} (seed ${seed}): no add was acknowledged in the ${killAfter} ms before the kill, so the property would be vacuous`,
      ).toBeGreaterThan(0);
      for (const [id, sent] of outcome.acknowledged) {
        expect(acknowledged.has(id), `round ${round}: id ${id} acknowledged twice (${acknowledged.get(id)?.name}, ${sent.name})`).toBe(false);
        acknowledged.set(id, sent);
      }
      unanswered.push(...outcome.unanswered);
      refused.push(...outcome.refused.map((r) => r.sent));

      // Restart on the same folder: what this round acknowledged is served, unchanged.
      running = await startChild(dir);
      const served = await checkServed(running.base, token, new Map([[warmId, warmSent], ...outcome.acknowledged]));
      const code = await running.stop();
      running = undefined;
      expect(code, 'the restarted server stops cleanly on SIGTERM').toBe(0);

      // And the database, closed: integrity, and every acknowledged add of every round so far.
      const db = checkDatabase(file, acknowledged, unanswered, refused);
      console.log(
        `durability round ${round}: SIGKILL ${killAfter} ms into the load; acknowledged ${outcome.acknowledged.size}, ` +
          `cut off unanswered ${outcome.unanswered.length}; after restart found ${db.pois} POIs ` +
          `(acknowledged in all rounds ${acknowledged.size}, committed but never answered ${db.pois - acknowledged.size})`,
      );
      expect(served, `round ${round} (seed ${seed}), through get.json after restart: ${show(served)}`).toEqual([]);
      expect(db.problems, `round ${round} (seed ${seed}), in the database: ${show(db.problems)}`).toEqual([]);
      expect(db.integrity, `round ${round}: PRAGMA integrity_check`).toEqual(['ok']);
      expect(db.foreignKeys, `round ${round}: PRAGMA foreign_key_check rows`).toBe(0);
      expect(db.rtree, `round ${round}: the R*Tree has one entry per POI`).toBe(db.pois);
    }
  });
});
