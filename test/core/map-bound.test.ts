import { afterAll, describe, expect, it } from 'vitest';
import { MAX_VIEW_POINTS, type MapView } from '../../shared/contract.js';
import { testCore } from '../support/core.js';

const core = testCore();
const clientId = core.clients.create({ name: 'Dense' }).client_id;
afterAll(() => core.close());

describe('a map view', () => {
  it('never sends more points than a page can draw, however dense, and still counts every POI', async () => {
    // 6,000 POIs in a square of about 110 m: past the clustering zooms every one is its own point.
    const inputs = Array.from({ length: 6000 }, (_, i) => ({ name: i % 2 ? `Stall ${i}` : `Kiosk ${i}`, lat: 40 + (i % 80) / 80_000, lng: -3 + Math.floor(i / 80) / 80_000, categories: [2 + (i % 2)] }));
    core.pois.addMany(clientId, inputs);
    const view = async (extra: Record<string, unknown> = {}) =>
      (await core.console['pois.map']({ clientId, south: 39.999, north: 40.002, west: -3.001, east: -2.998, zoom: 18, ...extra })) as MapView;
    for (const v of [(await view()), (await view({ zoom: 20 })), (await view({ q: 'Kiosk' })), (await view({ categories: [3] }))]) {
      expect(v.points.length).toBeLessThanOrEqual(MAX_VIEW_POINTS);
      expect(v.points.reduce((n, p) => n + p.count, 0)).toBe(v.total);
    }
    expect((await view()).total).toBe(6000);
    expect((await view({ q: 'Kiosk' })).total).toBe(3000);
    // Every point is inside the view, and a gathered point zooms in when clicked.
    for (const p of (await view()).points) {
      expect(p.lat).toBeGreaterThanOrEqual(39.999);
      expect(p.lat).toBeLessThanOrEqual(40.002);
      if (p.count > 1) expect(p.expandZoom).toBeGreaterThan(18);
    }
    // A small view of the same spot still shows single POIs, each with its id.
    const close = (await core.console['pois.map']({ clientId, south: 40, north: 40.00005, west: -3, east: -2.99995, zoom: 20 })) as MapView;
    expect(close.points.length).toBeGreaterThan(0);
    expect(close.points.every((p) => p.count === 1 && typeof p.poi === 'number')).toBe(true);
  });
});
