import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_VIEW_POINTS, type MapView } from '../../shared/contract.js';
import { sqlCellX, sqlCellY } from '../../main/core/pois/grid.js';
import { GridCells } from '../../main/core/pois/grid-cells.js';
import { DENSE_ABOVE_017 } from '../../main/core/store/migrations/017-grid-where-dense.js';
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

/**
 * Every cell of every level as the map reads it (stored where dense, counted from the R*Tree
 * elsewhere: grid-cells.ts), and the same cells counted afresh from the POIs.
 */
function readAndRecounted(core: Core): { read: CellRow[]; recounted: CellRow[] } {
  const order = 'ORDER BY client, level, cy, cx';
  const grid = new GridCells(core.db, core.store);
  const levels = core.db.prepare<[], { level: number; scale: number }>('SELECT level, scale FROM map_levels ORDER BY level').all();
  const clients = core.db.prepare<[], { id: string; rowid: number }>('SELECT id, rowid FROM clients ORDER BY rowid').all();
  const read = clients.flatMap(({ id, rowid }) =>
    levels.flatMap(({ level, scale }) =>
      grid
        .cells(id, level, { x0: 0, x1: scale - 1, y0: 0, y1: scale - 1 })
        .map((c) => ({ client: rowid, level, cy: c.cy, cx: c.cx, n: c.n, sum_id: c.sum_id, sum_lat: c.sum_lat, sum_lng: c.sum_lng })),
    ),
  );
  read.sort((x, y) => x.client - y.client || x.level - y.level || x.cy - y.cy || x.cx - y.cx);
  const recounted = core.db
    .prepare(
      `SELECT c.rowid AS client, l.level, ${sqlCellY('p.lat', 'l.scale')} AS cy, ${sqlCellX('p.lng', 'l.scale')} AS cx,
              count(*) AS n, sum(p.id) AS sum_id, sum(p.lat) AS sum_lat, sum(p.lng) AS sum_lng
       FROM pois p JOIN clients c ON c.id = p.client_id, map_levels l GROUP BY 1, 2, 3, 4 ${order}`,
    )
    .all() as CellRow[];
  return { read, recounted };
}

/**
 * What the database stores keeps its rule (migration 017): level 2 in full, a finer cell exactly
 * where its parent two levels up is dense, and a stored cell that is not dense holds at most the
 * threshold (or a view could walk more than it).
 */
function expectStoredByTheRule(db: Core['db']): void {
  const strays = db
    .prepare(
      `SELECT count(*) FROM map_cells m WHERE m.level > 2 AND NOT EXISTS (
         SELECT 1 FROM map_dense d WHERE d.client = m.client AND d.level = m.level - 2 AND d.cy = m.cy >> 2 AND d.cx = m.cx >> 2)`,
    )
    .pluck()
    .get();
  expect(strays, 'stored cells without a dense parent').toBe(0);
  const crowded = db
    .prepare(
      `SELECT count(*) FROM map_cells m WHERE m.level < 18 AND m.n > ${DENSE_ABOVE_017} AND NOT EXISTS (
         SELECT 1 FROM map_dense d WHERE d.client = m.client AND d.level = m.level AND d.cy = m.cy AND d.cx = m.cx)`,
    )
    .pluck()
    .get();
  expect(crowded, 'cells over the threshold that are not dense').toBe(0);
  const emptyDense = db
    .prepare(
      `SELECT count(*) FROM map_dense d WHERE (SELECT coalesce(sum(n), 0) FROM map_cells m WHERE m.client = d.client AND m.level = d.level + 2 AND m.cy >> 2 = d.cy AND m.cx >> 2 = d.cx)
         <> (SELECT coalesce(sum(n), 0) FROM map_cells m WHERE m.client = d.client AND m.level = d.level AND m.cy = d.cy AND m.cx = d.cx)`,
    )
    .pluck()
    .get();
  expect(emptyDense, 'dense cells whose children do not add up to them').toBe(0);
  const wrong = db
    .prepare(
      `SELECT count(*) FROM map_cells m WHERE m.n <> (SELECT count(*) FROM pois p JOIN clients c ON c.id = p.client_id, map_levels l
         WHERE c.rowid = m.client AND l.level = m.level AND ${sqlCellY('p.lat', 'l.scale')} = m.cy AND ${sqlCellX('p.lng', 'l.scale')} = m.cx)`,
    )
    .pluck()
    .get();
  expect(wrong, 'stored cells whose count is not their POIs').toBe(0);
}

/** Counts and ids exactly; position sums to within float rounding (they are added and taken away). */
function expectSameCells(core: Core): void {
  expectStoredByTheRule(core.db);
  const { read, recounted } = readAndRecounted(core);
  const key = ({ client, level, cy, cx, n, sum_id }: CellRow) => ({ client, level, cy, cx, n, sum_id });
  expect(read.map(key)).toEqual(recounted.map(key));
  read.forEach((k, i) => {
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
    expectSameCells(app);
    const many = app.pois.addMany(a, Array.from({ length: 500 }, (_, i) => ({ lat: -33 + i / 1000, lng: 151 + i / 1000, name: `Sydney ${i}`, categories: [2] })));
    expectSameCells(app);
    // Undo of the last changes (the moves and deletes come back), and a merge of two of the imported POIs.
    const last = serve.db.prepare<[string], number>('SELECT max(seq) FROM changes WHERE client_id = ? AND poi_id IS NOT NULL').pluck();
    serve.undo.change(a, last.get(a)!);
    serve.merges.merge(a, many[0]!, many[1]!);
    expectSameCells(app);
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
    // Four POIs make no cell dense: below level 2 nothing is stored (migration 017), yet every level reads in full.
    expect(db.prepare('SELECT count(*) FROM map_cells WHERE level > 2').pluck().get()).toBe(0);
    db.close();
    const core = openCore({ file });
    cores.push(core);
    expectSameCells(core);
    expect(readAndRecounted(core).read.filter((c) => c.level === 18)).toHaveLength(4);
  });

  it('is thinned to its dense cells when a version-16 file migrates, and reads the same', () => {
    const file = scratch();
    const v16 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 16) });
    v16.exec("INSERT INTO clients (id, name, created_at) VALUES ('c', 'n', 0)");
    const insert = v16.prepare("INSERT INTO pois (client_id, name, lat, lng, category_ids, registered_at, updated_at, name_key) VALUES ('c', ?, ?, ?, '[1]', 1, 2, ?)");
    const rnd = prng(3);
    v16.transaction(() => {
      // A pile at one point (dense down to the finest level), a town around it, and a scatter.
      for (let i = 0; i < 1100; i++) insert.run(`pile ${i}`, 40.4168, -3.7038, `pile ${i}`);
      for (let i = 0; i < 1500; i++) insert.run(`town ${i}`, 40.4 + (rnd() - 0.5) * 0.1, -3.7 + (rnd() - 0.5) * 0.1, `town ${i}`);
      for (let i = 0; i < 500; i++) insert.run(`far ${i}`, 36 + rnd() * 8, -9 + rnd() * 12, `far ${i}`);
    })();
    const before = v16.prepare('SELECT count(*) FROM map_cells').pluck().get() as number;
    v16.close();
    const core = openCore({ file });
    cores.push(core);
    expect(core.db.prepare('SELECT count(*) FROM map_cells').pluck().get()).toBeLessThan(before / 2);
    expect(core.db.prepare('SELECT max(level) FROM map_dense').pluck().get()).toBe(16);
    expectSameCells(core);
  });

  it('reads the same as a recount after random batches of adds, moves and deletes, across the threshold', async () => {
    const file = scratch();
    const core = openCore({ file });
    cores.push(core);
    const clients = [core.clients.create({ name: 'A' }).client_id, core.clients.create({ name: 'B' }).client_id];
    const alive: Array<[string, number]> = [];
    // Spots close enough that a few hundred POIs push cells past the threshold at several levels.
    const place = fc.record({ spot: fc.integer({ min: 0, max: 3 }), dx: fc.integer({ min: 0, max: 1000 }), dy: fc.integer({ min: 0, max: 1000 }), pile: fc.boolean() });
    const at = (p: { spot: number; dx: number; dy: number; pile: boolean }): { lat: number; lng: number } =>
      p.pile ? { lat: 40.4168, lng: -3.7038 } : { lat: 40 + p.spot * 0.3 + p.dy / 5e3, lng: -4 + p.spot * 0.3 + p.dx / 5e3 };
    const op = fc.oneof(
      fc.record({ kind: fc.constant('add' as const), client: fc.integer({ min: 0, max: 1 }), count: fc.integer({ min: 1, max: 400 }), where: place }),
      fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), count: fc.integer({ min: 1, max: 200 }), where: place }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat(), count: fc.integer({ min: 1, max: 300 }) }),
    );
    // Both clients start just under the threshold in a few cells, so that the histories cross it.
    clients.forEach((clientId, c) => {
      const seeded = core.pois.addMany(clientId, Array.from({ length: DENSE_ABOVE_017 - 24 }, (_, i) => ({ ...at({ spot: c, dx: (i * 37) % 1000, dy: (i * 53) % 1000, pile: i % 2 === 0 }), name: `s${i}`, categories: [1] })));
      alive.push(...seeded.map((id) => [clientId, id] as [string, number]));
    });
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 6 }), async (ops) => {
        for (const o of ops) {
          // One transaction per batch, as the write path and imports make them.
          core.db.transaction(() => {
            if (o.kind === 'add') {
              const clientId = clients[o.client]!;
              const added = core.pois.addMany(clientId, Array.from({ length: o.count }, (_, i) => ({ ...at({ ...o.where, dx: (o.where.dx + i * 7) % 1000 }), name: `p${i}`, categories: [1] })));
              alive.push(...added.map((id) => [clientId, id] as [string, number]));
            } else if (o.kind === 'move') {
              for (let i = 0; i < Math.min(o.count, alive.length); i++) {
                const [clientId, id] = alive[(o.pick + i * 13) % alive.length]!;
                const { lat, lng } = at({ ...o.where, dy: (o.where.dy + i * 11) % 1000 });
                core.db.prepare('UPDATE pois SET lat = ?, lng = ? WHERE client_id = ? AND id = ?').run(lat, lng, clientId, id);
              }
            } else {
              for (let i = 0; i < Math.min(o.count, alive.length); i++) {
                const [clientId, id] = alive.splice((o.pick + i) % alive.length, 1)[0]!;
                core.db.prepare('DELETE FROM pois WHERE client_id = ? AND id = ?').run(clientId, id);
              }
            }
          })();
        }
        expectSameCells(core);
      }),
      { numRuns: 12 },
    );
    expect(core.db.prepare('SELECT count(*) FROM map_dense WHERE level >= 8').pluck().get(), 'the histories made cells dense').toBeGreaterThan(0);
  }, 120_000);
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
