/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { basemapDrawn, centreOn, consoleOp, expect, forEachPanel, screenshotPath, test, type Page } from './fixtures.js';

test.describe.configure({ mode: 'serial' });

/**
 * A portrait tablet (800 × 1280) by touch: every control, link and pin on screen takes a touch
 * anywhere in a 44 × 44 px square around its middle (WCAG 2.5.5), measured by asking the page
 * what is under each of nine points of that square. A label counts for its control, as a tap on
 * it does. Before, buttons were 30-32 px tall, the client selector 19 px, pins 22 px.
 */
test.use({ viewport: { width: 800, height: 1280 }, hasTouch: true, isMobile: true });

const TARGET = 44;

/** Every control in view that is too small to touch, as "what (width × height hit)". */
async function tooSmall(page: Page): Promise<string[]> {
  return page.evaluate((target) => {
    // The square's edges 1 px in; its corners 2 px in, for a button's 4 px rounded corner.
    const edge = target / 2 - 1;
    const corner = target / 2 - 2;
    const controls = Array.from(document.querySelectorAll<HTMLElement>('a[href], button, input:not([type="hidden"]), select, textarea, [role="button"], [tabindex="0"]')).filter(
      (el) => el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) && !el.closest('.skip-link') && !el.classList.contains('leaflet-container'),
    );
    const found: string[] = [];
    for (const el of controls) {
      el.scrollIntoView({ block: 'center', inline: 'center' });
      const labels = Array.from((el as HTMLInputElement).labels ?? []);
      const boxes = [el, ...labels].map((e) => e.getBoundingClientRect());
      const left = Math.min(...boxes.map((b) => b.left));
      const right = Math.max(...boxes.map((b) => b.right));
      const top = Math.min(...boxes.map((b) => b.top));
      const bottom = Math.max(...boxes.map((b) => b.bottom));
      const cx = (left + right) / 2;
      const cy = (top + bottom) / 2;
      const owns = (hit: Element | null): boolean => !!hit && (el === hit || el.contains(hit) || labels.some((l) => l === hit || l.contains(hit)));
      // Under an open popover or dialog (the map's credits under Map layers): not on screen to be touched.
      const atCentre = document.elementFromPoint(cx, cy);
      if (!owns(atCentre) && atCentre?.closest('.map-layers-panel, [role="dialog"], [role="alertdialog"]')) continue;
      const misses: string[] = [];
      for (const dx of [-1, 0, 1]) {
        for (const dy of [-1, 0, 1]) {
          const inset = dx !== 0 && dy !== 0 ? corner : edge;
          const x = cx + dx * inset;
          const y = cy + dy * inset;
          // A finger cannot reach past the screen's edge either.
          if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
          const hit = document.elementFromPoint(x, y);
          if (!owns(hit)) misses.push(`${Math.round(dx * inset)},${Math.round(dy * inset)} (${hit ? `${hit.tagName.toLowerCase()}.${String(hit.className).split(' ')[0]}` : 'nothing'})`);
        }
      }
      if (misses.length) {
        const name = el.getAttribute('aria-label') ?? (el.textContent?.trim().slice(0, 30) || el.id);
        found.push(`${el.tagName.toLowerCase()}${el.className ? `.${String(el.className).split(' ')[0]}` : ''} “${name}” ${Math.round(right - left)}×${Math.round(bottom - top)}, missed at ${misses.join(' ')}`);
      }
    }
    return found;
  }, TARGET);
}

test('on an 800 × 1280 tablet by touch, every control, link and pin on every panel is a 44 × 44 px target', async ({ app: page, info }) => {
  expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
  const a = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 43.2965, lng: 5.3698, name: 'Touch target A', categories: [7], geocode: false } });
  const b = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 43.2975, lng: 5.3748, name: 'Touch target B', categories: [7], geocode: false } });
  // A possible duplicate of B, so that the Duplicates panel lists a pair: its names' links sit over its Merge button.
  const b2 = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 43.2975, lng: 5.3748, name: 'Touch target B.', categories: [7], geocode: false } });
  await centreOn(page, 43.297, 5.372, 16);
  // The upright tablet's layout: the map over the panel, as wide as the screen.
  const map = (await page.locator('.leaflet-container').boundingBox())!;
  expect(map.width).toBe(800);
  await expect(page.getByRole('button', { name: 'Touch target A' })).toBeVisible();

  const problems: Record<string, string[]> = {};
  const check = async (where: string): Promise<void> => {
    const small = await tooSmall(page);
    if (small.length) problems[where] = small;
  };
  await forEachPanel(page, 'tap', check);
  await page.getByRole('button', { name: 'Touch target A' }).tap();
  await expect(page.getByRole('region', { name: 'POI details' })).toBeVisible();
  // Before the check, which scrolls every control into view.
  await basemapDrawn(page);
  await page.screenshot({ path: screenshotPath('tablet-layout') });
  await check('POI details');
  await page.getByRole('region', { name: 'POI details' }).getByRole('button', { name: 'Edit' }).tap();
  await expect(page.getByRole('form', { name: 'Edit POI' })).toBeVisible();
  await check('Edit POI');
  await page.getByRole('button', { name: 'Map layers' }).tap();
  await check('Map layers');
  expect(problems).toEqual({});

  for (const poi of [a, b, b2]) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
});
