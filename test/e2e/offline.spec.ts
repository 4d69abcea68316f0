/// <reference lib="dom" />
import { expect, test, type Page } from './fixtures.js';

/** The colour of the basemap under the middle of the map (land is #efeadf; sea is transparent, showing the map's blue). */
const centreColour = (page: Page) =>
  page.evaluate(() => {
    const map = document.querySelector('.leaflet-container')!.getBoundingClientRect();
    const [x, y] = [map.left + map.width / 2, map.top + map.height / 2];
    const tile = Array.from(document.querySelectorAll<HTMLCanvasElement>('.leaflet-basemap-pane canvas')).find((c) => {
      const r = c.getBoundingClientRect();
      return r.left <= x && x < r.right && r.top <= y && y < r.bottom;
    });
    if (!tile) return null;
    const box = tile.getBoundingClientRect();
    const scale = tile.width / box.width;
    const [r, g, b, a] = tile.getContext('2d')!.getImageData(Math.floor((x - box.left) * scale), Math.floor((y - box.top) * scale), 1, 1).data;
    return { r, g, b, a };
  });

test('the map is never blank offline: the bundled world basemap is drawn when tiles cannot load', async ({ app: page }) => {
  let tileFailures = 0;
  page.on('requestfailed', (r) => {
    if (r.url().includes('tile.openstreetmap.org')) tileFailures++;
  });
  await page.evaluate(() => {
    location.hash = '#map=6/40.41690/-3.70350';
  });
  await page.reload();
  await expect.poll(() => page.locator('.leaflet-basemap-pane canvas').count()).toBeGreaterThan(1);
  // Land (Spain) under the centre, drawn from world-atlas's country shapes.
  await expect.poll(() => centreColour(page)).toEqual({ r: 239, g: 234, b: 223, a: 255 });
  expect(tileFailures).toBeGreaterThan(0);
  // Zoomed far in, it still covers the view.
  await page.evaluate(() => {
    location.hash = '#map=14/40.41690/-3.70350';
  });
  await expect.poll(() => centreColour(page)).toEqual({ r: 239, g: 234, b: 223, a: 255 });
  // And the sea is sea: the middle of the Bay of Biscay shows no land.
  await page.evaluate(() => {
    location.hash = '#map=7/45.5/-5.5';
  });
  await expect.poll(async () => (await centreColour(page))?.a ?? -1).toBe(0);
});

test('offline, one line over the map says the online tiles did not load and what is shown instead; only what is drawn is credited', async ({ app: page }) => {
  await expect(page.getByRole('status').filter({ hasText: 'Online map tiles did not load' })).toContainText('showing the bundled world map');
  const credits = page.locator('.leaflet-control-attribution');
  await expect(credits).toContainText('Natural Earth');
  await expect(credits).not.toContainText('OpenStreetMap');
});

test('zoomed in, the bundled map is Natural Earth 1:10m: Piazza San Marco in Venice is on land, not at sea', async ({ app: page }) => {
  await page.evaluate(() => {
    location.hash = '#map=13/45.43410/12.33880';
  });
  await expect.poll(() => centreColour(page), { timeout: 20_000 }).toEqual({ r: 239, g: 234, b: 223, a: 255 });
  // Open sea stays sea at that zoom: the Adriatic off the Lido.
  await page.evaluate(() => {
    location.hash = '#map=13/45.30000/12.60000';
  });
  await expect.poll(() => centreColour(page), { timeout: 20_000 }).not.toEqual({ r: 239, g: 234, b: 223, a: 255 });
});

test('offline, the bundled map names the largest places of the view (GeoNames), as text, out of the way of clicks', async ({ app: page }) => {
  await page.evaluate(() => {
    location.hash = '#map=6/40.41690/-3.70350';
  });
  const madrid = page.locator('.place-label', { hasText: /^Madrid$/ });
  await expect(madrid).toBeVisible();
  expect(await page.locator('.place-label').count()).toBeLessThanOrEqual(12);
  await expect(page.locator('.leaflet-control-attribution')).toContainText('GeoNames');
  // A click on a name is a click on the map: it starts a POI there.
  const box = (await madrid.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect(page.getByRole('form', { name: 'Add POI' })).toBeVisible();
  await page.getByRole('button', { name: 'Cancel' }).click();
});
