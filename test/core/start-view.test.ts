import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { clientExtent } from '../../main/core/pois/extent.js';
import { testCore } from '../support/core.js';

/**
 * The map opens around the client's POIs (maps.startView), read from the map grid's cells rather
 * than from every POI. Checked against the true box of random sets of POIs: always inside it, and
 * never further inside than one cell of the level it read.
 */
const core = testCore();
let run = 0;
afterAll(() => core.close());

const addAll = (clientId: string, points: readonly (readonly [number, number])[]): void => {
  const insert = core.db.prepare("INSERT INTO pois (client_id, name, name_key, lat, lng, registered_at, updated_at) VALUES (?, 'p', 'p', ?, ?, 0, 0)");
  core.db.transaction(() => {
    for (const [lat, lng] of points) insert.run(clientId, lat, lng);
  })();
};

describe('the box around a client’s POIs', () => {
  it('is none for a client with no POIs, and exact for a few', () => {
    const client = core.clients.create({ name: 'Few' }).client_id;
    expect(clientExtent(core.db, client)).toBeUndefined();
    addAll(client, [[37.7749, -122.4194], [37.8044, -122.2712], [37.3382, -121.8863]]);
    expect(clientExtent(core.db, client)).toEqual({ south: 37.3382, west: -122.4194, north: 37.8044, east: -121.8863 });
  });

  it('lies inside the true box, within a cell of it, for any set of POIs', () => {
    const lat = fc.double({ min: -80, max: 80, noNaN: true });
    const lng = fc.double({ min: -179, max: 179, noNaN: true });
    fc.assert(
      fc.property(fc.array(fc.tuple(lat, lng), { minLength: 1, maxLength: 3_000 }), (points) => {
        const client = core.clients.create({ name: `Random ${++run}` }).client_id;
        addAll(client, points);
        const box = clientExtent(core.db, client)!;
        const lats = points.map((p) => p[0]);
        const lngs = points.map((p) => p[1]);
        const truth = { south: Math.min(...lats), west: Math.min(...lngs), north: Math.max(...lats), east: Math.max(...lngs) };
        // The coarsest level read (2^2 cells a side) spans 90° of longitude; a finer one is read whenever it has at most 2,000 cells.
        const slack = 90 + 1e-9;
        expect(box.south).toBeGreaterThanOrEqual(truth.south - 1e-9);
        expect(box.north).toBeLessThanOrEqual(truth.north + 1e-9);
        expect(box.west).toBeGreaterThanOrEqual(truth.west - 1e-9);
        expect(box.east).toBeLessThanOrEqual(truth.east + 1e-9);
        expect(box.south - truth.south).toBeLessThan(slack);
        expect(truth.east - box.east).toBeLessThan(slack);
      }),
      { numRuns: 25 },
    );
  });
});
