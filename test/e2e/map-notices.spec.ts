/// <reference lib="dom" />
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import { DATABASE_FILE } from '../../main/data-dir.js';
import type { PoiReply } from '../../shared/wire.js';
import { centreOn, consoleOp, expect, test, type Page } from './fixtures.js';

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box): boolean => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
/** One line of notice, with its buttons (44 px on a phone) and their padding. */
const ONE_LINE = 48;

/** The notices' box, and what it must stay clear of: the map's credits, zoom buttons and Map layers. */
async function measure(page: Page): Promise<{ foot: Box; map: Box; controls: Record<string, Box> }> {
  const box = async (selector: string): Promise<Box> => (await page.locator(selector).first().boundingBox())!;
  return {
    foot: await box('.map-foot'),
    map: await box('.leaflet-container'),
    controls: {
      credits: await box('.leaflet-control-attribution'),
      zoom: await box('.leaflet-control-zoom'),
      layers: (await page.getByRole('button', { name: 'Map layers' }).boundingBox())!,
    },
  };
}

for (const viewport of [
  { width: 390, height: 800 },
  { width: 1280, height: 800 },
]) {
  test.describe(`at ${viewport.width} × ${viewport.height}`, () => {
    test.use({ viewport });

    test("the map's notices take one line, clear of its controls and credits; Details and Dismiss work by keyboard", async ({ app: page }) => {
      // Offline (the tests' tile servers are unreachable) where no package covers the view: two notices.
      await centreOn(page, 48.8566, 2.3522, 12);
      const line = page.getByRole('status').filter({ hasText: 'Online map tiles did not load' });
      await expect(line).toBeVisible();
      await expect(page.locator('.map-foot')).toContainText('No offline map covers this view at zoom 12');
      const { foot, map, controls } = await measure(page);
      // Before: 390 px, 2 notices stacked over ~40 % of the map; 1280 px, a 640 × 45 strip.
      expect(foot.height).toBeLessThanOrEqual(ONE_LINE);
      expect(foot.y).toBeGreaterThanOrEqual(map.y);
      expect(foot.y + foot.height).toBeLessThanOrEqual(map.y + map.height);
      for (const [name, control] of Object.entries(controls)) expect(overlaps(foot, control), `the notices over the ${name}`).toBe(false);

      // The details on demand, by keyboard: the whole text, and the import it offers.
      const notices = page.getByRole('group', { name: 'Notices about the map' });
      const details = notices.getByRole('button', { name: 'Details' });
      await details.focus();
      await page.keyboard.press('Enter');
      await expect(notices.getByRole('button', { name: 'Less' })).toHaveAttribute('aria-expanded', 'true');
      await expect(notices.getByRole('button', { name: 'Import a map package…' })).toBeVisible();
      await page.keyboard.press('Enter');
      await expect(notices.getByRole('button', { name: 'Import a map package…' })).toHaveCount(0);

      // Dismissed by keyboard: gone, focus on the map, and still gone elsewhere while they say the same.
      await notices.getByRole('button', { name: 'Dismiss' }).focus();
      await page.keyboard.press('Enter');
      await expect(line).toHaveCount(0);
      await expect(notices.getByRole('button')).toHaveCount(0);
      await expect(page.locator('.leaflet-container')).toBeFocused();
      expect((await page.locator('.map-foot').boundingBox())?.height ?? 0).toBeLessThanOrEqual(1);
      await centreOn(page, 45.764, 4.8357, 13);
      await expect(page.getByRole('status').filter({ hasText: 'did not load' })).toHaveCount(0);
      // What they say changes (zoomed out, no word about packages): the notice is back.
      await centreOn(page, 45.764, 4.8357, 6);
      await expect(page.getByRole('status').filter({ hasText: 'Online map tiles did not load' })).toBeVisible();
      await expect(page.getByRole('status').filter({ hasText: 'No offline map' })).toHaveCount(0);
    });
  });
}

test.describe('at 390 × 800, a refused move', () => {
  test.use({ viewport: { width: 390, height: 800 } });

  test("says why over the map, clear of its zoom buttons and Map layers", async ({ app: page, info }) => {
    const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 41.3902, lng: 2.1801, name: 'Refused on a phone', categories: [7], geocode: false } });
    await centreOn(page, 41.3902, 2.1801, 16);
    const marker = page.locator('.leaflet-marker-icon[title="Refused on a phone"]');
    await expect(marker).toBeVisible();
    // Another program holds the write lock: the move waits the busy timeout, then is refused.
    const other = new BetterSqlite3(join(info.dataDir, DATABASE_FILE));
    try {
      other.exec('BEGIN IMMEDIATE');
      const from = (await marker.boundingBox())!;
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + from.width / 2 + 40, from.y + from.height / 2 + 60, { steps: 8 });
      await page.mouse.up();
      await page.getByRole('alertdialog', { name: 'Move a POI' }).getByRole('button', { name: 'Move', exact: true }).click();
      await expect(page.getByRole('alert').filter({ hasText: 'another program is holding the database' })).toBeVisible({ timeout: 15_000 });
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const notice = (await page.locator('.map-notice').boundingBox())!;
    const { controls } = await measure(page);
    // Before: at left 56 px and top 10 px, over the zoom buttons (44 px wide on a phone) and towards Map layers.
    for (const [name, control] of Object.entries(controls)) expect(overlaps(notice, control), `the refusal over the ${name}`).toBe(false);
    await page.getByRole('button', { name: 'Dismiss', exact: true }).click();
    await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  });
});
