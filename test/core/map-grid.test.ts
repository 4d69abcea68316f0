import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_VIEW_POINTS, type MapView } from '../../shared/contract.js';
import { sqlCellX, sqlCellY } from '../../main/core/pois/grid.js';
import { openDatabase } from '../../main/core/store/database.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';
import { prng } from '../bench/stats.js';
import { openCore, type OpenCore as Core } from '../support/core.js';

const dirs: string[] = [];
const cores: Core[] = [];
afterEach(() => {
  cores.splice(0).forEach((c) => c.close());
  dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true }));
});
const scratch = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'poi-grid-'));
  dirs.push(dir);
  return join(dir, 'poi.sqlite');
};

interface CellRow {
  client: number;
  level: number;
  cy: number;
  cx: number;
  n: number;
  sum_id: number;
  sum_lat: number;
  sum_lng: number;
}

/** The cells the triggers keep, and the same cells counted afresh from the POIs. */
function keptAndRecounted(db: Core['db']): { kept: CellRow[]; recounted: CellRow[] } {
  const order = 'ORDER BY client, level, cy, cx';
  const kept = db.prepare(`SELECT client, level, cy, cx, n, sum_id, sum_lat, sum_lng FROM map_cells ${order}`).all() as CellRow[];
  const recounted = db
    .prepare(
      `SELECT c.rowid AS client, l.level, ${sqlCellY('p.lat', 'l.scale')} AS cy, ${sqlCellX('p.lng', 'l.scale')} AS cx,
              count(*) AS n, sum(p.id) AS sum_id, sum(p.lat) AS sum_lat, sum(p.lng) AS sum_lng
       FROM pois p JOIN clients c ON c.id = p.client_id, map_levels l GROUP BY 1, 2, 3, 4 ${order}`,
    )
    .all() as CellRow[];
  return { kept, recounted };
}

/** Counts and ids exactly; position sums to within float rounding (they are added and taken away). */
function expectSameCells(db: Core['db']): void {
  const { kept, recounted } = keptAndRecounted(db);
  const key = ({ client, level, cy, cx, n, sum_id }: CellRow) => ({ client, level, cy, cx, n, sum_id });
  expect(kept.map(key)).toEqual(recounted.map(key));
  kept.forEach((k, i) => {
    expect(k.sum_lat).toBeCloseTo(recounted[i]!.sum_lat, 7);
    expect(k.sum_lng).toBeCloseTo(recounted[i]!.sum_lng, 7);
  });
}

const WORLD = { south: -85, north: 85, west: -180, east: 180 };
const total = (v: MapView): number => v.points.reduce((n, p) => n + p.count, 0);

describe("the map's grid (migration 013)", () => {
  it('stays equal to a recount of the POIs through adds, moves, renames, deletes, imports, undo and merges from two processes', async () => {
    const file = scratch();
    const app = openCore({ file });
    const serve = openCore({ file });
    cores.push(app, serve);
    const a = app.clients.create({ name: 'A' }).client_id;
    const b = app.clients.create({ name: 'B' }).client_id;
    const rnd = prng(7);
    const ids: Array<[string, number]> = [];
    for (let i = 0; i < 300; i++) {
      const core = i % 2 ? app : serve;
      const clientId = i % 3 ? a : b;
      const op = rnd();
      if (op < 0.5 || ids.length < 5) {
        const poi = await core.pois.add(clientId, null, { lat: 40 + rnd() * 2, lng: -4 + rnd() * 2, name: `P${i}`, categories: [1], geocode: false });
        ids.push([clientId, poi.id]);
      } else if (op < 0.75) {
        const [owner, id] = ids[Math.floor(rnd() * ids.length)]!;
        await core.pois.update(owner, { poi: id, lat: 40 + rnd() * 2, lng: -4 + rnd() * 2 });
      } else if (op < 0.85) {
        const [owner, id] = ids[Math.floor(rnd() * ids.length)]!;
        await core.pois.update(owner, { poi: id, name: `Renamed ${i}` });
      } else {
        const [owner, id] = ids.splice(Math.floor(rnd() * ids.length), 1)[0]!;
        core.pois.remove(owner, id);
      }
    }
    expectSameCells(app.db);
    const many = app.pois.addMany(a, Array.from({ length: 500 }, (_, i) => ({ lat: -33 + i / 1000, lng: 151 + i / 1000, name: `Sydney ${i}`, categories: [2] })));
    expectSameCells(app.db);
    // Undo of the last changes (the moves and deletes come back), and a merge of two of the imported POIs.
    const last = serve.db.prepare<[string], number>('SELECT max(seq) FROM changes WHERE client_id = ? AND poi_id IS NOT NULL').pluck();
    serve.undo.change(a, last.get(a)!);
    serve.merges.merge(a, many[0]!, many[1]!);
    expectSameCells(app.db);
    const counted = app.db.prepare('SELECT sum(n) FROM map_cells WHERE level = 2').pluck().get();
    expect(counted).toBe(app.db.prepare('SELECT count(*) FROM pois').pluck().get());
  });

  it('is built for the POIs of a version-12 file when it migrates', () => {
    const file = scratch();
    const v12 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 12) });
    v12.exec(`
      INSERT INTO clients (id, name, created_at) VALUES ('c', 'n', 0), ('d', 'm', 0);
      INSERT INTO pois (id, client_id, name, lat, lng, category_ids, registered_at, updated_at, name_key)
        VALUES (7, 'c', 'Sol', 40.4169, -3.7035, '[1]', 1, 2, 'sol'), (9, 'c', 'Cibeles', 40.4193, -3.6931, '[1]', 1, 2, 'cibeles'),
               (11, 'd', 'Opera', 48.8719, 2.3316, '[1]', 1, 2, 'opera'), (12, 'c', 'Pole', 89.9, 179.99, '[1]', 1, 2, 'pole');
    `);
    v12.close();
    const db = openDatabase(file);
    const cells = db.prepare('SELECT client, level, n, sum_id FROM map_cells WHERE level = 2 ORDER BY client, sum_id').all();
    // At level 2 (4 x 4 cells), Madrid's two POIs share a cell; the one near the pole sits in the top row.
    expect(cells).toEqual([
      { client: 1, level: 2, n: 2, sum_id: 16 },
      { client: 1, level: 2, n: 1, sum_id: 12 },
      { client: 2, level: 2, n: 1, sum_id: 11 },
    ].sort((x, y) => x.client - y.client || x.sum_id - y.sum_id));
    expect(db.prepare('SELECT cy FROM map_cells WHERE level = 2 AND sum_id = 12').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM map_cells WHERE level = 18').pluck().get()).toBe(4);
    db.close();
  });
});

describe('a map view from the grid', () => {
  it('counts every POI once at every zoom, filtered or not, and never sends more than the bound', async () => {
    const file = scratch();
    const core = openCore({ file });
    cores.push(core);
    const clientId = core.clients.create({ name: 'Spread' }).client_id;
    const rnd = prng(11);
    // 20,000 POIs: clumps around 40 "towns" and a scatter, in categories 1-3 (some in two).
    const towns = Array.from({ length: 40 }, () => [36 + rnd() * 8, -9 + rnd() * 12] as const);
    const inputs = Array.from({ length: 20_000 }, (_, i) => {
      const [lat, lng] = i % 4 === 0 ? [36 + rnd() * 8, -9 + rnd() * 12] : towns[i % 40]!;
      return { lat: lat + (rnd() - 0.5) * 0.02, lng: lng + (rnd() - 0.5) * 0.02, name: i % 5 === 0 ? `Farmacia ${i}` : `Bar ${i}`, categories: i % 7 === 0 ? [1, 2] : [1 + (i % 3)] };
    });
    core.pois.addMany(clientId, inputs);
    const view = async (extra: Record<string, unknown>) => (await core.console['pois.map']({ clientId, ...WORLD, zoom: 2, ...extra })) as MapView;
    const inCategory = (c: number[]) => inputs.filter((p) => p.categories.some((x) => c.includes(x))).length;
    for (let zoom = 0; zoom <= 6; zoom++) {
      for (const [extra, expected] of [
        [{}, 20_000],
        [{ q: 'farmacia' }, 4000],
        [{ categories: [2] }, inCategory([2])],
        // A POI in both categories counts once.
        [{ categories: [1, 2] }, inCategory([1, 2])],
      ] as const) {
        const v = (await view({ zoom, ...extra }));
        expect(v.points.length).toBeLessThanOrEqual(MAX_VIEW_POINTS);
        expect(v.total, `zoom ${zoom} ${JSON.stringify(extra)}`).toBe(expected);
        expect(total(v)).toBe(v.total);
      }
    }
    // Over one town, at every zoom the points are inside the view and add up to what is in it.
    const [lat, lng] = towns[1]!;
    for (let zoom = 7; zoom <= 19; zoom++) {
      const half = 180 / 2 ** zoom;
      const box = { south: lat - half, north: lat + half, west: lng - 2 * half, east: lng + 2 * half };
      const v = (await core.console['pois.map']({ clientId, ...box, zoom })) as MapView;
      expect(v.points.length).toBeLessThanOrEqual(MAX_VIEW_POINTS);
      expect(total(v)).toBe(v.total);
      for (const p of v.points) {
        expect(p.lat).toBeGreaterThanOrEqual(box.south);
        expect(p.lat).toBeLessThanOrEqual(box.north);
        expect(p.lng).toBeGreaterThanOrEqual(box.west);
        expect(p.lng).toBeLessThanOrEqual(box.east);
        if (p.count === 1) expect(p.name).toMatch(/^(Bar|Farmacia) \d+$/);
        else expect(p.expandZoom).toBeGreaterThan(zoom);
      }
      const strictlyInside = inputs.filter((p) => p.lat >= box.south && p.lat <= box.north && p.lng >= box.west && p.lng <= box.east).length;
      // Cells straddling the edge count with the side their mean falls on: close to, not exactly, the POIs inside.
      expect(Math.abs(v.total - strictlyInside)).toBeLessThanOrEqual(Math.max(5, strictlyInside * 0.5));
      if (zoom >= 17 && strictlyInside <= MAX_VIEW_POINTS) expect(v.points.every((p) => p.count === 1)).toBe(true);
    }
  });

  it("shows another process's adds, moves and deletes in the next view, clustered or not", async () => {
    const file = scratch();
    const app = openCore({ file });
    const clientId = app.clients.create({ name: 'Shared' }).client_id;
    const serve = openCore({ file });
    cores.push(app, serve);
    const spain = { south: 36, north: 44, west: -10, east: 4, zoom: 5 };
    const filtered = { ...spain, categories: [4] };
    const view = async (extra = {}) => (await app.console['pois.map']({ clientId, ...spain, ...extra })) as MapView;
    app.pois.addMany(clientId, Array.from({ length: 50 }, (_, i) => ({ lat: 40.4 + i / 1e4, lng: -3.7, name: `M${i}`, categories: [3 + (i % 2)] })));
    expect([(await view()).total, (await view(filtered)).total]).toEqual([50, 25]);

    const added = await serve.pois.add(clientId, null, { lat: 41.38, lng: 2.17, name: 'Barcelona', categories: [4], geocode: false });
    expect([(await view()).total, (await view(filtered)).total]).toEqual([51, 26]);
    expect((await view()).points.find((p) => p.poi === added.id)?.name).toBe('Barcelona');

    await serve.pois.update(clientId, { poi: added.id, lat: 48.85, lng: 2.35 });
    expect([(await view()).total, (await view(filtered)).total]).toEqual([50, 25]);
    await serve.pois.update(clientId, { poi: added.id, lat: 41.38, lng: 2.17, categories: [3] });
    expect([(await view()).total, (await view(filtered)).total]).toEqual([51, 25]);

    serve.pois.remove(clientId, added.id);
    expect([(await view()).total, (await view(filtered)).total]).toEqual([50, 25]);
    // A first view after a restart reads the same cells: nothing to rebuild.
    const fresh = openCore({ file });
    cores.push(fresh);
    expect(await fresh.console['pois.map']({ clientId, ...spain })).toEqual(await view());
  });
});
