/// <reference lib="dom" />
import { centreOn, expect, test, type Page } from './fixtures.js';

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
