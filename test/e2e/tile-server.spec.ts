/// <reference lib="dom" />
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEFAULT_TILE_ATTRIBUTION, DEFAULT_TILE_ATTRIBUTION_URL, DEFAULT_TILE_URL } from '../../shared/contract.js';
import { consoleOp, expect, test } from './fixtures.js';

/** A 1x1 PNG: Leaflet stretches it over the tile's square; the test looks at requests and load state. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

test('a tile server on this computer, over plain http, is accepted and drawn, credited as typed', async ({ app: page }) => {
  const asked: string[] = [];
  const tiles: Server = createServer((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
  });
  await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}`;
  try {
    await consoleOp(page, 'settings.set', { tileUrl: `${origin}/{z}/{x}/{y}.png`, tileAttribution: 'Field <tiles> & co', tileAttributionUrl: `${origin}/about` });
    // A new tile server needs a new page: its Content-Security-Policy names the server.
    await page.reload();
    // Through the data folder's cache (the default), fetched by the app from the tile server.
    const drawn = page.locator('.leaflet-tile-pane img.leaflet-tile-loaded[src*="/console/online-tiles/"]');
    await expect(drawn.first()).toBeAttached();
    expect(asked.some((path) => /^\/\d+\/\d+\/\d+\.png$/.test(path))).toBe(true);
    // The credit is text (no element made of it), linked to the page it names.
    const credit = page.locator(`.leaflet-control-attribution a[href="${origin}/about"]`);
    await expect(credit).toHaveText('Field <tiles> & co');
    await expect(page.locator('.leaflet-control-attribution tiles')).toHaveCount(0);
    // Drawn: no offline line.
    await expect(page.getByRole('status').filter({ hasText: 'did not load' })).toHaveCount(0);
  } finally {
    await consoleOp(page, 'settings.set', { tileUrl: DEFAULT_TILE_URL, tileAttribution: DEFAULT_TILE_ATTRIBUTION, tileAttributionUrl: DEFAULT_TILE_ATTRIBUTION_URL, tileCacheMb: 0 });
    await new Promise((resolve) => tiles.close(resolve));
  }
});

test('tiles seen online are drawn from the data folder\'s cache once the tile server is gone; with no cache, straight from the server', async ({ app: page }) => {
  let served = 0;
  const tiles: Server = createServer((_req, res) => {
    served++;
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'max-age=0' }).end(PNG);
  });
  await new Promise<void>((resolve) => tiles.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(tiles.address() as AddressInfo).port}`;
  try {
    await consoleOp(page, 'tiles.clearCache', {});
    await consoleOp(page, 'settings.set', { tileUrl: `${origin}/{z}/{x}/{y}.png`, tileAttribution: 'Local tiles', tileAttributionUrl: '' });
    await page.reload();
    const drawn = page.locator('.leaflet-tile-pane img.leaflet-tile-loaded[src*="/console/online-tiles/"]');
    await expect(drawn.first()).toBeAttached();
    await expect.poll(async () => (await consoleOp<{ tiles: number }>(page, 'tiles.cacheStatus', {})).tiles).toBeGreaterThan(0);
    // Every tile of the view fetched: the server has been quiet for half a second (a count taken
    // while the last tiles are still on their way made this test fail now and then).
    await expect
      .poll(async () => {
        const before = served;
        await page.waitForTimeout(500);
        return served === before;
      })
      .toBe(true);
    const seen = served;

    // The tile server stops (the network is gone): the same view still draws, from the cache, stale or not.
    await new Promise((resolve) => {
      tiles.close(resolve);
      tiles.closeAllConnections();
    });
    await page.reload();
    await expect(drawn.first()).toBeAttached();
    await expect(page.getByRole('status').filter({ hasText: 'did not load' })).toHaveCount(0);
    expect(served).toBe(seen);

    // The settings show what is kept, and empty it; then nothing draws and the map says so.
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Settings', exact: true }).click();
    const form = page.getByRole('form', { name: 'Map tiles' });
    await expect(form.getByRole('status').filter({ hasText: 'tiles kept for offline use' })).not.toContainText(/^0 tiles/);
    await form.getByRole('button', { name: 'Clear the tile cache' }).click();
    await expect(form.getByRole('status').filter({ hasText: 'tiles kept for offline use' })).toContainText(/^0 tiles kept/);
    await page.reload();
    await expect(page.getByRole('status').filter({ hasText: 'Online map tiles did not load' })).toBeVisible();

    // With no cache, the page asks the tile server itself (the page's CSP names it).
    await consoleOp(page, 'settings.set', { tileUrl: `${origin}/{z}/{x}/{y}.png`, tileAttribution: 'Local tiles', tileAttributionUrl: '', tileCacheMb: 0 });
    await page.reload();
    await expect(page.locator(`.leaflet-tile-pane img[src^="${origin}/"]`).first()).toBeAttached();
  } finally {
    await consoleOp(page, 'settings.set', { tileUrl: DEFAULT_TILE_URL, tileAttribution: DEFAULT_TILE_ATTRIBUTION, tileAttributionUrl: DEFAULT_TILE_ATTRIBUTION_URL, tileCacheMb: 0 });
    tiles.close();
  }
});

test('the settings form refuses a tile server on the internet over http, and says so under the field', async ({ app: page }) => {
  const sent: string[] = [];
  page.on('request', (r) => {
    if (r.url().includes('/console/api/settings.set')) sent.push(r.url());
  });
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Settings', exact: true }).click();
  const url = page.getByLabel('Tile URL');
  await url.fill('http://tiles.example.org/{z}/{x}/{y}.png');
  await page.getByRole('button', { name: 'Save settings' }).click();
  await expect(url).toHaveAttribute('aria-invalid', 'true');
  const form = page.getByRole('form', { name: 'Map tiles' });
  await expect(form.locator('.field-error').getByRole('alert')).toContainText('http to localhost, a private network address');
  await expect(form.locator('.error-summary')).toBeFocused();
  // Checked before sending, with the schema the console checks it with (test/http/console.test.ts has the console refuse it too).
  expect(sent).toEqual([]);
  expect(await consoleOp<{ tileUrl: string }>(page, 'settings.get', {})).toMatchObject({ tileUrl: DEFAULT_TILE_URL });
});
