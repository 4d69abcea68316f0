import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { MapPoint, MapView } from '../../shared/contract.js';
import type { PoiReply } from '../../shared/wire.js';
import { openCore } from '../support/core.js';

// Slices of 16 ids over 200 POIs: 13 slices, so every boundary case (a match on the last id of a
// slice, a page ending mid-slice, a limit reached in the first slice) happens on a few POIs.
const SLICE = 16;
const dir = mkdtempSync(join(tmpdir(), 'poi-sliced-'));
const file = join(dir, 'poi.sqlite');
const core = openCore({ file, scanSlice: SLICE });
const other = openCore({ file, scanSlice: SLICE });
// The default slices: its views of a few hundred POIs are read at once, from the R*Tree.
const whole = openCore({ file });
afterAll(() => {
  core.close();
  other.close();
  whole.close();
  rmSync(dir, { recursive: true, force: true });
});
const { client_id: clientId } = core.clients.create({ name: 'Sliced' });
const { client_id: neighbour } = core.clients.create({ name: 'Neighbour' });

const POIS = Array.from({ length: 200 }, (_, i) => ({
  name: i % 7 === 0 ? `Needle ${i}` : `Item ${i}`,
  desc: i % 11 === 0 ? 'has a needle inside' : 'plain',
  lat: 40 + i / 1e3,
  lng: -3,
  categories: [i % 2 ? 7 : 3],
}));
// Another client's POIs lie between ours: a slice is a range of ids, not of one client's POIs.
core.pois.addMany(clientId, POIS.slice(0, 100));
core.pois.addMany(neighbour, POIS.slice(0, 50));
core.pois.addMany(clientId, POIS.slice(100));
const ids = core.db.prepare('SELECT id FROM pois WHERE client_id = ? ORDER BY id').pluck().all(clientId) as number[];
const expected = (pred: (i: number) => boolean): number[] => ids.filter((_, i) => pred(i));
const matches = (i: number): boolean => i % 7 === 0 || i % 11 === 0;

/** Counts turns of the event loop while `work` runs. */
async function turnsDuring(work: () => Promise<unknown>): Promise<number> {
  let turns = 0;
  let running = true;
  const tick = (): void => {
    if (!running) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  running = false;
  return turns;
}

const search = async (filter: Record<string, unknown>): Promise<number[]> =>
  ((await core.console['pois.search']({ clientId, filter })) as PoiReply[]).map((p) => p.id);

describe('a text search over many POIs, walked in slices of ids', () => {
  it('finds exactly what one scan finds, with its total, categories and paging across slice boundaries', async () => {
    expect(await search({ q: 'needle', total: 1000 })).toEqual(expected(matches));
    expect(await search({ q: 'needle', total: 5 })).toEqual(expected(matches).slice(0, 5));
    expect(await search({ q: 'needle', categories: [7], total: 1000 })).toEqual(expected((i) => matches(i) && i % 2 === 1));

    const seen: number[] = [];
    let after: number | undefined;
    for (;;) {
      const page = (await core.console['pois.searchPage']({ clientId, q: 'needle', limit: 9, ...(after ? { after } : {}) })) as { total: number; pois: PoiReply[] };
      expect(page.total).toBe(expected(matches).length);
      if (page.pois.length === 0) break;
      seen.push(...page.pois.map((p) => p.id));
      after = page.pois.at(-1)!.id;
    }
    expect(seen).toEqual(expected(matches));
  });

  it('gives the event loop back between two slices, so a request beside it waits for one slice, not the scan', async () => {
    const turns = await turnsDuring(async () => expect(await search({ q: 'in no poi at all', total: 1000 })).toEqual([]));
    const span = ids.at(-1)! - ids[0]! + 1;
    expect(turns).toBeGreaterThanOrEqual(Math.ceil(span / SLICE) - 1);
  });

  it('sees, in the slices after it, a write another process acknowledged while the search was under way', async () => {
    const last = ids.at(-1)!;
    const found = search({ q: 'renamed meanwhile', total: 1000 });
    // The first slice has run (synchronously, before the search's first turn): now the other
    // process renames the last POI, which lies in a later slice.
    await other.console['pois.update']({ clientId, fields: { poi: last, name: 'Renamed meanwhile' } });
    expect(await found).toEqual([last]);
  });

  it('counts a searched map view in slices too, to the very view the R*Tree gives', async () => {
    const sorted = (v: MapView): MapPoint[] => [...v.points].sort((x, y) => x.lat - y.lat || x.lng - y.lng || x.count - y.count);
    for (const [zoom, box] of [
      [2, { south: -80, north: 80, west: -180, east: 180 }],
      [9, { south: 39.9, north: 40.3, west: -3.5, east: -2.5 }],
    ] as const) {
      let sliced: MapView | undefined;
      const turns = await turnsDuring(async () => (sliced = (await core.console['pois.map']({ clientId, zoom, ...box, q: 'needle' })) as MapView));
      const once = (await whole.console['pois.map']({ clientId, zoom, ...box, q: 'needle' })) as MapView;
      expect(sliced!.total, `zoom ${zoom}`).toBe(expected(matches).length);
      expect(sorted(sliced!)).toEqual(sorted(once));
      expect(turns, `zoom ${zoom}: turns given back`).toBeGreaterThanOrEqual(Math.ceil((ids.at(-1)! - ids[0]! + 1) / SLICE) - 1);
    }
  });
});
