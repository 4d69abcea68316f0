/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserMode, type RunningConsole } from '../../main/app/browser-mode.js';
import { openCore } from '../support/core.js';
import { prepareDataDir } from '../../main/data-dir.js';
import { freePort } from '../support/free-port.js';
import { expect, screenshotPath, test } from './fixtures.js';

/**
 * A first start of its own (the shared e2e server starts without the sample): a fresh data
 * folder, browser mode as `npm start` runs it, no network but this computer.
 */
let dir: string;
let running: RunningConsole;
let clientId: string;

test.beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'poi-e2e-first-start-'));
  const file = prepareDataDir(dir);
  const seed = openCore({ file });
  clientId = seed.clients.create({ name: 'First start' }).client_id;
  // Offline is the page's requests aborted: the server must not fetch tiles on its behalf.
  seed.settings.setMap({ ...seed.settings.map(), tileCacheMb: 0 });
  seed.close();
  running = await startBrowserMode({ file, port: await freePort(), token: 'first-start-console-token', log: () => undefined });
});
test.afterEach(async () => {
  await running.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('on a first start with no network, the map opens on the sample city, with streets and their names up to zoom 18, and a POI is added there by a click', async ({ page }) => {
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  await page.goto(running.url);
  // No view in the address: the map opens on the sample, at its zoom.
  await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/^#map=15\/37\.7\d+\/-122\.4\d+$/);
  const map = page.locator('.leaflet-container');
  await expect.poll(() => map.evaluate((m: HTMLElement) => Object.keys(m.dataset).some((k) => k.startsWith('drawn'))), { timeout: 20_000 }).toBe(true);
  await expect(page.getByRole('status').filter({ hasText: 'Online map tiles did not load' })).toContainText('San Francisco (sample)');
  await expect(page.locator('.leaflet-control-attribution')).toContainText('OpenStreetMap contributors (ODbL)');
  await expect(page.locator('.map-foot')).not.toContainText('No offline map covers');

  // Zoom 18, past the package's last zoom: its streets are drawn larger, not lost.
  await page.evaluate(() => {
    location.hash = '#map=18/37.76840/-122.43390';
  });
  await expect.poll(() => page.evaluate(() => performance.getEntriesByType('mark').filter((m) => m.name.startsWith('poi-package-drawn')).length), { timeout: 20_000 }).toBeGreaterThan(3);
  await page.waitForTimeout(1500);
  await page.screenshot({ path: screenshotPath('offline-sample-city') });

  const box = (await map.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const form = page.getByRole('form', { name: 'Add POI' });
  await expect(form).toBeVisible();
  await expect(form.getByLabel('Latitude', { exact: true })).toHaveValue(/^37\.768/);
  await form.getByLabel('Name', { exact: true }).fill('Duboce Park corner');
  await form.getByLabel('Categories', { exact: true }).selectOption({ label: 'Shop' });
  await form.getByRole('button', { name: 'Save POI' }).click();
  await expect(page.getByRole('region', { name: 'POI details' }).getByTestId('poi-title')).toHaveText('Duboce Park corner');
  await expect(page.locator('.leaflet-marker-icon[title="Duboce Park corner"]')).toBeVisible();
});

test("a POI geocoded there offline gets its street and cross street from the sample's tiles, and its history says so", async ({ page }) => {
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  await page.goto(running.url);
  // Haight St, 15 m east of Ashbury St.
  const response = await page.request.post(`${new URL(running.url).origin}/console/api/pois.add`, {
    data: { clientId, fields: { name: 'Haight corner', lat: 37.77003, lng: -122.44683, categories: [1], geocode: true } },
    headers: { authorization: 'Bearer first-start-console-token' },
  });
  expect(await response.json()).toMatchObject({ ok: true, value: { address: 'Haight St', cross_street: 'Ashbury St', city: 'San Francisco' } });
  await page.getByLabel('Search (name and description)').fill('Haight corner');
  await page.getByRole('button', { name: 'Find' }).click();
  await page.getByRole('list', { name: 'Search results' }).getByRole('button', { name: 'Haight corner' }).click();
  await page.getByText('History (1 change)').click();
  await expect(page.getByRole('list', { name: 'Changes, newest first' })).toContainText(
    'Geocoded: Address, Cross street from offline map package San Francisco (sample); City, Country from offline places',
  );
});
