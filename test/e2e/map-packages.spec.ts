/// <reference lib="dom" />
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { writeMbtiles, writePmtiles } from '../../main/build/map-package-writer.js';
import type { MapPackage } from '../../shared/maps.js';
import { rasterTiles, streetsAround, tilesAround, vectorTiles } from '../support/map-fixtures.js';
import { centreOn, consoleOp, expect, screenshotPath, test, type Page } from './fixtures.js';

/** Fixture packages, made by the test itself, away from the other specs' places. */
const LISBON = { lat: 38.7075, lng: -9.1366 };
const PORTO = { lat: 41.1496, lng: -8.611 };
const dir = mkdtempSync(join(tmpdir(), 'poi-e2e-maps-'));

function vectorMbtiles(): string {
  const file = join(dir, 'lisbon-streets.mbtiles');
  writeMbtiles(file, { format: 'pbf', name: 'Lisbon streets', attribution: '© Fixture Streets', tiles: vectorTiles(streetsAround(LISBON.lng, LISBON.lat), tilesAround(LISBON.lng, LISBON.lat, 12, 15)) });
  return file;
}
function rasterPmtiles(): string {
  const file = join(dir, 'porto-red.pmtiles');
  writePmtiles(file, { format: 'png', name: 'Porto red', tiles: rasterTiles(tilesAround(PORTO.lng, PORTO.lat, 10, 12, 2), [220, 30, 30]) });
  return file;
}
function rasterMbtiles(): string {
  const file = join(dir, 'porto-green.mbtiles');
  writeMbtiles(file, { format: 'png', name: 'Porto green', tiles: rasterTiles(tilesAround(PORTO.lng, PORTO.lat, 10, 12, 2), [30, 200, 30]) });
  return file;
}

/** The colour the page shows at a point of the map, `dx`/`dy` pixels from its centre. */
async function colourAt(page: Page, dx = 0, dy = 0): Promise<[number, number, number]> {
  const box = (await page.locator('.leaflet-container').boundingBox())!;
  const shot = await page.screenshot({ clip: { x: Math.round(box.x + box.width / 2 + dx), y: Math.round(box.y + box.height / 2 + dy), width: 1, height: 1 } });
  const png = PNG.sync.read(shot);
  return [png.data[0]!, png.data[1]!, png.data[2]!];
}

/** Pixels from the centre to a point (Web Mercator at this zoom; tiles of 256 px). */
function offset(from: { lat: number; lng: number }, to: { lat: number; lng: number }, zoom: number): { dx: number; dy: number } {
  const world = 256 * 2 ** zoom;
  const y = (lat: number): number => (0.5 - Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360)) / (2 * Math.PI)) * world;
  return { dx: ((to.lng - from.lng) / 360) * world, dy: y(to.lat) - y(from.lat) };
}

async function importByPicker(page: Page, file: string): Promise<void> {
  const panel = page.getByRole('region', { name: 'Map layers' });
  if (!(await panel.isVisible())) await page.getByRole('button', { name: 'Map layers' }).click();
  const chooser = page.waitForEvent('filechooser');
  await page.getByRole('button', { name: 'Import a map package…' }).first().click();
  await (await chooser).setFiles(file);
}

test.afterEach(async ({ app: page }) => {
  for (const pkg of await consoleOp<MapPackage[]>(page, 'maps.list', {})) await consoleOp(page, 'maps.remove', { id: pkg.id });
});

test('offline, a vector MBTiles imported from the file picker is drawn (streets, water), credited, and a POI can be added on it', async ({ app: page }) => {
  await importByPicker(page, vectorMbtiles());
  const panel = page.getByRole('region', { name: 'Map layers' });
  await expect(panel.getByRole('checkbox', { name: /Lisbon streets/ })).toBeChecked();
  await expect(panel).toContainText('vector, zoom 12–15');
  // The map opens on the package and draws it.
  await expect.poll(() => page.evaluate(() => Object.keys(document.querySelector<HTMLElement>('.leaflet-container')!.dataset).some((k) => k.startsWith('drawn'))), { timeout: 20_000 }).toBe(true);
  await centreOn(page, LISBON.lat, LISBON.lng, 16);
  await expect(page.getByRole('status').filter({ hasText: 'Online map tiles did not load' })).toContainText('showing Lisbon streets and the bundled world map');
  await expect(page.locator('.leaflet-control-attribution')).toContainText('© Fixture Streets');
  // The lake of the fixture is water-blue (the style's #a9d3f0), overzoomed from zoom 15.
  // The panel the import opened would hide the lake.
  await page.getByRole('button', { name: 'Map layers' }).click();
  const lake = offset(LISBON, { lat: LISBON.lat + 0.003, lng: LISBON.lng + 0.003 }, 16);
  await expect.poll(() => colourAt(page, lake.dx, lake.dy), { timeout: 20_000 }).toEqual([169, 211, 240]);
  // No notice that nothing covers the view: the package does.
  await expect(page.locator('.map-foot')).not.toContainText('No offline map covers');
  await page.screenshot({ path: screenshotPath('offline-vector-package') });

  // A click on the package's map starts a POI there.
  const box = (await page.locator('.leaflet-container').boundingBox())!;
  await page.mouse.click(box.x + box.width / 2 + 40, box.y + box.height / 2 + 40);
  const form = page.getByRole('form', { name: 'Add POI' });
  await expect(form).toBeVisible();
  await expect(form.getByLabel('Latitude')).toHaveValue(/^38\.70/);
  await page.getByRole('button', { name: 'Cancel' }).click();
});

test('a raster PMTiles dropped on the map and a raster MBTiles from the picker are drawn, stacked in import order, each can be hidden', async ({ app: page }) => {
  const bytes = readFileSync(rasterPmtiles()).toString('base64');
  await page.locator('.map-area').evaluate((area, data) => {
    const file = new File([Uint8Array.from(atob(data), (c) => c.charCodeAt(0))], 'porto-red.pmtiles');
    const transfer = new DataTransfer();
    transfer.items.add(file);
    area.dispatchEvent(new DragEvent('dragover', { dataTransfer: transfer, bubbles: true, cancelable: true }));
    area.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, bytes);
  const panel = page.getByRole('region', { name: 'Map layers' });
  await expect(panel.getByRole('checkbox', { name: /Porto red/ })).toBeChecked();
  await centreOn(page, PORTO.lat, PORTO.lng, 12);
  await expect.poll(() => colourAt(page)).toEqual([220, 30, 30]);
  // Overzoomed past its last zoom (12): still red at 15.
  await centreOn(page, PORTO.lat, PORTO.lng, 15);
  await expect.poll(() => colourAt(page)).toEqual([220, 30, 30]);

  await importByPicker(page, rasterMbtiles());
  await expect(panel.getByRole('checkbox', { name: /Porto green/ })).toBeChecked();
  await centreOn(page, PORTO.lat, PORTO.lng, 12);
  // The later import is drawn over the earlier one.
  await expect.poll(() => colourAt(page)).toEqual([30, 200, 30]);
  await panel.getByRole('checkbox', { name: /Porto green/ }).uncheck();
  await expect.poll(() => colourAt(page)).toEqual([220, 30, 30]);
  // The choice is kept across a reload.
  await page.reload();
  await page.getByRole('button', { name: 'Map layers' }).click();
  await expect(page.getByRole('region', { name: 'Map layers' }).getByRole('checkbox', { name: /Porto green/ })).not.toBeChecked();
});

test('a broken file is refused with the reason where the person is looking, and nothing is imported', async ({ app: page, info }) => {
  const before = await consoleOp<MapPackage[]>(page, 'maps.list', {});
  const broken = join(dir, 'holiday-photos.mbtiles');
  writeFileSync(broken, 'these are not map tiles');
  await importByPicker(page, broken);
  const alert = page.getByRole('region', { name: 'Map layers' }).getByRole('alert');
  await expect(alert).toContainText('holiday-photos');
  await expect(alert).toContainText('neither an MBTiles file nor a PMTiles archive');
  expect(await consoleOp<MapPackage[]>(page, 'maps.list', {})).toEqual(before);
  expect(readdirSync(join(info.dataDir, 'maps')).filter((f) => !f.endsWith('.json') && !f.endsWith('.mbtiles') && !f.endsWith('.pmtiles'))).toEqual([]);
  await alert.getByRole('button', { name: 'Dismiss' }).click();
  await expect(alert).toHaveCount(0);
});

test('offline where no package covers the view, a notice says so at street zoom and offers an import', async ({ app: page }) => {
  await centreOn(page, 48.8566, 2.3522, 7);
  await expect(page.locator('.map-foot')).not.toContainText('No offline map covers');
  await centreOn(page, 48.8566, 2.3522, 12);
  const notices = page.getByRole('group', { name: 'Notices about the map' });
  await expect(notices).toContainText('No offline map covers this view at zoom 12');
  await notices.getByRole('button', { name: 'Details' }).click();
  await notices.getByRole('button', { name: 'Import a map package…' }).click();
  await expect(page.getByRole('region', { name: 'Map layers' })).toBeVisible();
});

test('an upload in progress shows its progress and can be cancelled: nothing is imported', async ({ app: page }) => {
  const before = await consoleOp<MapPackage[]>(page, 'maps.list', {});
  // Held back for a while, as a big file on a slow disk would be.
  await page.route('**/console/maps?**', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await route.continue().catch(() => undefined);
  });
  await importByPicker(page, rasterMbtiles());
  const panel = page.getByRole('region', { name: 'Map layers' });
  await expect(panel.getByText('Importing porto-green.mbtiles')).toBeVisible();
  await panel.getByRole('button', { name: 'Cancel' }).click();
  await expect(panel.getByText('Importing porto-green.mbtiles')).toHaveCount(0);
  await expect(panel.getByRole('alert')).toHaveCount(0);
  await page.waitForTimeout(5_500);
  expect(await consoleOp<MapPackage[]>(page, 'maps.list', {})).toEqual(before);
  await expect(panel.getByRole('button', { name: 'Import a map package…' })).toBeEnabled();
});

test('removing a package asks first, over the open panel: Escape answers the question alone, Remove package removes it', async ({ app: page }) => {
  await importByPicker(page, rasterMbtiles());
  const panel = page.getByRole('region', { name: 'Map layers' });
  const remove = panel.getByRole('button', { name: 'Remove Porto green' });
  await remove.click();
  const question = page.getByRole('alertdialog', { name: 'Remove a map package' });
  await expect(question).toContainText('Remove the map package “Porto green” from this computer?');
  await expect(question.getByRole('button', { name: 'Keep it' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  // The panel under it stays open, focus back on the button that asked.
  await expect(panel).toBeVisible();
  await expect(remove).toBeFocused();
  expect((await consoleOp<MapPackage[]>(page, 'maps.list', {})).map((p) => p.name)).toEqual(['Porto green']);

  await remove.click();
  await question.getByRole('button', { name: 'Remove package' }).click();
  await expect(panel.getByRole('checkbox', { name: /Porto green/ })).toHaveCount(0);
  expect(await consoleOp<MapPackage[]>(page, 'maps.list', {})).toEqual([]);
  // The package's row went: focus stays in the panel, which still has its other controls.
  await expect.poll(() => panel.evaluate((el) => el.contains(document.activeElement))).toBe(true);
});

test('the Map layers panel by keyboard, and at a phone width (390 px) inside the screen', async ({ app: page }) => {
  const toggle = page.getByRole('button', { name: 'Map layers' });
  await toggle.focus();
  await page.keyboard.press('Enter');
  const panel = page.getByRole('region', { name: 'Map layers' });
  await expect(panel).toBeVisible();
  await expect(toggle).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('Tab');
  await expect(panel.getByRole('checkbox', { name: /Online tiles/ })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(toggle).toBeFocused();
  // Escape with focus still on the toggle (just opened it) closes the panel too.
  await page.keyboard.press('Enter');
  await expect(panel).toBeVisible();
  await expect(toggle).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(panel).toBeHidden();
  await expect(toggle).toHaveAttribute('aria-expanded', 'false');
  await expect(toggle).toBeFocused();

  await page.setViewportSize({ width: 390, height: 844 });
  await toggle.click();
  const box = (await panel.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(390);
  const importButton = panel.getByRole('button', { name: 'Import a map package…' });
  expect((await importButton.boundingBox())!.height).toBeGreaterThanOrEqual(44);
});
