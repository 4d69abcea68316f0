/// <reference lib="dom" />
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeMbtiles } from '../../main/build/map-package-writer.js';
import type { JobView } from '../../shared/jobs.js';
import type { MapPackage } from '../../shared/maps.js';
import { rasterTiles, tilesAround } from '../support/map-fixtures.js';
import { E2E_TOKEN } from './info.js';
import { centreOn, consoleOp, expect, test, type Page } from './fixtures.js';

const BERLIN = { lat: 52.52, lng: 13.405 };
const LYON = { lat: 45.764, lng: 4.8357 };

/** Imports a small raster package around a place, credited `credit`, as browser mode's upload does. */
async function importRaster(page: Page, name: string, at: { lat: number; lng: number }, credit: string): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'poi-e2e-credits-')), `${name}.mbtiles`);
  writeMbtiles(file, { format: 'png', name, attribution: credit, tiles: rasterTiles(tilesAround(at.lng, at.lat, 10, 12, 1), [200, 200, 30]) });
  const r = await page.request.post(`/console/maps?filename=${name}.mbtiles`, { data: readFileSync(file), headers: { authorization: `Bearer ${E2E_TOKEN}`, 'content-type': 'application/octet-stream' } });
  const { value } = (await r.json()) as { value: JobView };
  await expect.poll(async () => (await consoleOp<JobView>(page, 'jobs.get', { id: value.id })).state).toBe('done');
}

test.afterEach(async ({ app: page }) => {
  for (const pkg of await consoleOp<MapPackage[]>(page, 'maps.list', {})) await consoleOp(page, 'maps.remove', { id: pkg.id });
});

test("the map credits a package only where it is drawn: its area in view, at its zooms", async ({ app: page }) => {
  await importRaster(page, 'berlin-raster', BERLIN, '© Berlin fixture');
  await importRaster(page, 'lyon-raster', LYON, '© Lyon fixture');
  // Reloaded on Lyon (a view in the address is kept), to read the packages imported.
  await page.evaluate(([lat, lng]) => history.replaceState(null, '', `#map=12/${lat}/${lng}`), [LYON.lat, LYON.lng] as const);
  await page.reload();
  const credits = page.locator('.leaflet-control-attribution');
  await expect(credits).toContainText('© Lyon fixture');
  // Before: Berlin's credit over Lyon, where none of it is drawn.
  await expect(credits).not.toContainText('© Berlin fixture');
  await centreOn(page, BERLIN.lat, BERLIN.lng, 11);
  await expect(credits).toContainText('© Berlin fixture');
  await expect(credits).not.toContainText('© Lyon fixture');
  // Zoomed out past their first zoom, neither is drawn.
  await centreOn(page, 49, 9, 5);
  await expect(credits).not.toContainText('fixture');
  await expect(credits).toContainText('Natural Earth');
});
