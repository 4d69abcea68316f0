import { afterAll, describe, expect, it } from 'vitest';
import { testCore } from '../support/core.js';

const core = testCore();
afterAll(() => core.close());

describe('the bundled map\'s place names (map.places)', () => {
  it('gives the most populous places in a box first, as many as asked', async () => {
    const places = await core.console['map.places']({ south: 39.8, north: 41, west: -4.5, east: -3, limit: 3 });
    expect(places.map((p) => p.name)).toEqual(['Madrid', expect.any(String), expect.any(String)]);
    expect(places[0]!.population).toBeGreaterThan(places[1]!.population);
    for (const p of places) {
      expect(p.lat).toBeGreaterThanOrEqual(39.8);
      expect(p.lat).toBeLessThanOrEqual(41);
    }
  });

  it('reads a box across the antimeridian from both sides', async () => {
    const fiji = await core.console['map.places']({ south: -19, north: -17, west: 177, east: -179, limit: 1 });
    expect(fiji.map((p) => p.name)).toEqual(['Suva']);
    const none = await core.console['map.places']({ south: -60, north: -59, west: -150, east: -149, limit: 5 });
    expect(none).toEqual([]);
  });
});
