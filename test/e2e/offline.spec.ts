/// <reference lib="dom" />
import { expect, test } from './fixtures.js';

test('the map is never blank offline: the bundled world basemap is drawn when tiles cannot load', async ({ app: page }) => {
  let tileRequests = 0;
  page.on('requestfailed', (r) => {
    if (r.url().includes('tile.openstreetmap.org')) tileRequests++;
  });
  await page.reload();
  await expect(page.locator('.leaflet-container')).toBeVisible();
  // Country shapes from world-atlas, drawn as SVG paths in their own pane under the tiles.
  const countries = page.locator('.leaflet-basemap-pane path');
  await expect.poll(() => countries.count()).toBeGreaterThan(100);
  expect(tileRequests).toBeGreaterThan(0);
  // Zoomed far in, the basemap still covers the view.
  await page.evaluate(() => {
    location.hash = '#map=12/40.41690/-3.70350';
  });
  await expect.poll(() => countries.count()).toBeGreaterThan(0);
  // Some country shape (Spain's) covers the middle of the view.
  const covered = await page.evaluate(() => {
    const map = document.querySelector('.leaflet-container')!.getBoundingClientRect();
    const [x, y] = [map.left + map.width / 2, map.top + map.height / 2];
    return Array.from(document.querySelectorAll('.leaflet-basemap-pane path')).some((p) => {
      const r = p.getBoundingClientRect();
      return r.left <= x && r.right >= x && r.top <= y && r.bottom >= y;
    });
  });
  expect(covered).toBe(true);
});
