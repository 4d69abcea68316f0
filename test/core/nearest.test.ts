import { describe, expect, it } from 'vitest';
import { metresBetween } from '../../main/core/pois/geo.js';
import { PoiStore } from '../../main/core/pois/poi-store.js';
import { REPLY_PIECE } from '../../main/core/pois/sliced-scan.js';
import { testCore } from '../support/core.js';

/** A deterministic generator (Park-Miller), so a failure can be replayed. */
const prng = (seed: number) => () => (seed = (seed * 16807) % 2147483647) / 2147483647;

interface Placed {
  id: number;
  lat: number;
  lng: number;
  categories: number[];
}

/**
 * One client's POIs: a dense city (most of them within 300 m), points scattered over the world,
 * points on both sides of the antimeridian and near both poles; another client's POIs on top
 * of the city, which must never show.
 */
function world(dense: number) {
  const core = testCore();
  const rnd = prng(7);
  const mine = core.clients.create({ name: 'Mine' }).client_id;
  const other = core.clients.create({ name: 'Other' }).client_id;
  // The database links each POI to its category_ids (migration 008).
  const insert = core.db.prepare('INSERT INTO pois (client_id, name, lat, lng, category_ids, registered_at, updated_at, name_key) VALUES (?, ?, ?, ?, ?, 0, 0, ?)');
  const placed: Placed[] = [];
  let n = 0;
  const put = (clientId: string, lat: number, lng: number): void => {
    const categories = [1 + (n++ % 3)];
    const id = Number(insert.run(clientId, 'p', lat, lng, JSON.stringify(categories), 'p').lastInsertRowid);
    if (clientId === mine) placed.push({ id, lat, lng, categories });
  };
  core.db.transaction(() => {
    for (let i = 0; i < dense; i++) put(mine, 40.4 + (rnd() - 0.5) * 0.005, -3.7 + (rnd() - 0.5) * 0.007);
    for (let i = 0; i < 2000; i++) put(other, 40.4 + (rnd() - 0.5) * 0.005, -3.7 + (rnd() - 0.5) * 0.007);
    for (let i = 0; i < 300; i++) put(mine, (Math.asin(2 * rnd() - 1) * 180) / Math.PI, rnd() * 360 - 180);
    for (let i = 0; i < 40; i++) put(mine, -17 + rnd(), i % 2 ? 179.9 + rnd() * 0.1 : -180 + rnd() * 0.1);
    for (let i = 0; i < 20; i++) put(mine, i % 2 ? 89.5 + rnd() * 0.5 : -90 + rnd() * 0.5, rnd() * 360 - 180);
    // Many POIs on one spot (more than a search step reads): ties broken by id.
    for (let i = 0; i < 600; i++) put(mine, 10, 10);
  })();
  return { core, mine, placed };
}

function bruteForce(placed: Placed[], q: { lat: number; lng: number; radius: number; total: number; categories?: number[] }): number[] {
  return placed
    .filter((p) => !q.categories || p.categories.some((c) => q.categories!.includes(c)))
    .map((p) => ({ id: p.id, d: metresBetween(q.lat, q.lng, p.lat, p.lng) }))
    .filter((p) => p.d <= q.radius)
    .sort((a, b) => a.d - b.d || a.id - b.id)
    .slice(0, q.total)
    .map((p) => p.id);
}

describe('near', () => {
  it('finds exactly the nearest POIs a brute-force sort finds, wherever the query and whatever the radius', async () => {
    const { core, mine, placed } = world(3000);
    const rnd = prng(11);
    const queries = [
      { lat: 40.4, lng: -3.7, radius: 20_037_509, total: 1000 },
      { lat: 40.4, lng: -3.7, radius: 150, total: 1000 },
      { lat: 40.401, lng: -3.699, radius: 1000, total: 7 },
      { lat: -33.9, lng: 151.2, radius: 20_037_509, total: 1000 },
      { lat: -33.9, lng: 151.2, radius: 20_037_509, total: 25, categories: [2] },
      { lat: -17.5, lng: 180, radius: 30_000, total: 1000 },
      { lat: -17.5, lng: -179.99, radius: 5_000, total: 3 },
      { lat: 90, lng: 0, radius: 200_000, total: 1000 },
      { lat: -89.9, lng: 45, radius: 20_037_509, total: 10 },
      { lat: 10, lng: 10, radius: 1, total: 3 },
      { lat: 10, lng: 10, radius: 1000, total: 1000 },
      { lat: 10.001, lng: 10, radius: 20_037_509, total: 700 },
      { lat: 40.4, lng: -3.7, radius: 20_037_509, total: 50, categories: [1, 3] },
      ...Array.from({ length: 40 }, () => ({
        lat: (Math.asin(2 * rnd() - 1) * 180) / Math.PI,
        lng: rnd() * 360 - 180,
        radius: [100, 10_000, 1_000_000, 20_037_509][Math.floor(rnd() * 4)]!,
        total: [1, 10, 1000][Math.floor(rnd() * 3)]!,
        ...(rnd() < 0.3 ? { categories: [1 + Math.floor(rnd() * 3)] } : {}),
      })),
    ];
    for (const q of queries) {
      const got = (await core.queries.near(mine, q)).map((p) => p.id);
      expect({ q, ids: got }).toEqual({ q, ids: bruteForce(placed, q) });
    }
    core.close();
  });

  it('reads a bounded number of tree entries over a dense area, not every POI of it, nor of another client, and the rows of about the POIs it answers', async () => {
    const { core, mine } = world(20_000);
    const small = core.clients.create({ name: 'Small' }).client_id;
    for (let i = 0; i < 5; i++) core.db.prepare("INSERT INTO pois (client_id, name, lat, lng, registered_at, updated_at, name_key) VALUES (?, 's', ?, -3.7, 0, 0, 's')").run(small, 40 + i);
    const store = new PoiStore(core.db);
    // What each read of the store gave, counted.
    const read = { rows: 0, exact: 0, whole: 0, wholeReads: 0 };
    const counting = <A extends unknown[], R>(f: (...args: A) => R[], key: keyof typeof read) => (...args: A): R[] => {
      const found = f(...args);
      read[key] += found.length;
      return found;
    };
    store.treeEntries = counting(store.treeEntries.bind(store), 'rows');
    store.positions = counting(store.positions.bind(store), 'exact');
    const rowsOf = counting(store.rows.bind(store), 'whole');
    store.rows = (...args) => ((read.wholeReads += 1), rowsOf(...args));
    // Through the same store the queries use.
    Object.assign(core.queries, { store });
    let probes = 0;
    const entriesIn = store.entriesIn.bind(store);
    store.entriesIn = (...args) => ((probes += 1), entriesIn(...args));
    for (const [client, q, expected] of [
      [mine, { lat: 40.4, lng: -3.7, radius: 20_037_509, total: 1000 }, 1000],
      [mine, { lat: 40.4, lng: -3.7, radius: 1000, total: 10 }, 10],
      [mine, { lat: -33.9, lng: 151.2, radius: 20_037_509, total: 1000 }, 1000],
      // A client of 5 POIs beside another's 20,000 in the same city.
      [small, { lat: 40.4, lng: -3.7, radius: 20_037_509, total: 1000 }, 5],
    ] as const) {
      Object.assign(read, { rows: 0, exact: 0, whole: 0, wholeReads: 0 });
      probes = 0;
      expect(await core.queries.near(client, q)).toHaveLength(expected);
      expect(read.rows, `tree entries read for ${JSON.stringify(q)}`).toBeLessThan(q.total * 4 + 2048);
      // Rows of pois: those whose tree box may put them among the nearest, not every candidate.
      // When they are few enough for one piece of the reply, they are read whole, once; else
      // their positions, then the rows of the POIs answered, a piece at a time.
      const long = expected > REPLY_PIECE;
      expect(long ? read.exact : read.whole, `rows read for ${JSON.stringify(q)}`).toBeLessThan(q.total + 64);
      if (long) expect(read.whole, 'then the rows of the POIs answered').toBe(expected);
      else expect({ positions: read.exact, readsOfWholeRows: read.wholeReads }, 'each row read once').toEqual({ positions: 0, readsOfWholeRows: 1 });
      if (client === small) expect(probes, 'the small client is read in one step').toBe(1);
    }
    core.close();
  });
});
