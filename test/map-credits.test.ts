import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MapPackage } from '../shared/maps.js';

type ViewBox = { south: number; north: number; west: number; east: number; zoom: number };
// The page's module, loaded as the tests run: the renderer is type-checked in its own program (DOM, bundler resolution).
const PAGE_MODULE = '../renderer/src/map/attribution.ts';
const { packageCredits } = z
  .object({ packageCredits: z.custom<(packages: MapPackage[], view: ViewBox) => string[]>((v) => typeof v === 'function') })
  .parse(await import(PAGE_MODULE));

const pkg = (id: string, bounds: MapPackage['bounds'], zooms: [number, number], attribution: string, attributionUrl = ''): MapPackage => ({
  id,
  name: id,
  container: 'mbtiles',
  format: 'png',
  kind: 'raster',
  minZoom: zooms[0],
  maxZoom: zooms[1],
  bounds,
  center: [(bounds[0] + bounds[2]) / 2, (bounds[1] + bounds[3]) / 2, zooms[0]],
  attribution,
  attributionUrl,
  layers: [],
  schema: 'other',
  bytes: 1,
  importedAt: '2026-11-27T00:00:00Z',
});

const BERLIN = pkg('berlin', [13.08, 52.33, 13.77, 52.68], [10, 16], '© Berlin raster');
const LYON = pkg('lyon', [4.7, 45.65, 5.0, 45.85], [12, 18], '© Lyon <vector>', 'https://lyon.example/about?a=1&b=2');
const ALSO_LYON = pkg('lyon-2', [4.7, 45.65, 5.0, 45.85], [8, 14], '© Lyon <vector>', 'https://lyon.example/about?a=1&b=2');
const FIJI = pkg('fiji', [176, -20, 180, -15], [4, 10], '© Fiji');
/** Lyon's centre at street zoom. */
const overLyon = { south: 45.74, north: 45.78, west: 4.8, east: 4.88, zoom: 14 };

describe("the map's credits for packages", () => {
  it('credit only the packages drawn: their bounds meet the view and the zoom is within their range', () => {
    // Before: every package shown was credited wherever the map was (Berlin's credit over Lyon).
    expect(packageCredits([BERLIN, LYON], overLyon)).toEqual(['<a href="https://lyon.example/about?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">© Lyon &lt;vector&gt;</a>']);
    expect(packageCredits([BERLIN, LYON], { ...overLyon, zoom: 11 })).toEqual([]);
    // Past its last zoom a package is still drawn (scaled up), so still credited.
    expect(packageCredits([LYON], { ...overLyon, zoom: 19 })).toHaveLength(1);
    expect(packageCredits([BERLIN, LYON], { south: 52.4, north: 52.6, west: 13.2, east: 13.6, zoom: 10 })).toEqual(['© Berlin raster']);
    // A view of the whole of Europe at a low zoom draws neither.
    expect(packageCredits([BERLIN, LYON], { south: 35, north: 60, west: -10, east: 30, zoom: 5 })).toEqual([]);
    // Two packages of one provider: one credit.
    expect(packageCredits([LYON, ALSO_LYON], overLyon)).toHaveLength(1);
    // A view across the antimeridian.
    expect(packageCredits([FIJI], { south: -18, north: -16, west: 178, east: -178, zoom: 6 })).toEqual(['© Fiji']);
    expect(packageCredits([FIJI], { south: -18, north: -16, west: 150, east: 160, zoom: 6 })).toEqual([]);
    // A package with no credit adds none (no empty entry between the separators).
    expect(packageCredits([pkg('blank', LYON.bounds, [12, 18], '')], overLyon)).toEqual([]);
  });
});
