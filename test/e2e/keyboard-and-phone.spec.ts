/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import type { Locator } from '@playwright/test';
import { answerConfirm, basemapDrawn, centreOn, consoleOp, expect, screenshotPath, test, type Page } from './fixtures.js';

test.describe.configure({ mode: 'serial' });

/** Presses Tab until the control has focus, as a keyboard user would (at most 40 times). */
async function tabTo(page: Page, control: Locator): Promise<void> {
  for (let i = 0; i < 40; i++) {
    if (await control.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  throw new Error('Tab never reached the control');
}

test('by keyboard only: Enter on a pin opens it, Escape closes it, and a POI is added at the map centre', async ({ app: page, info }) => {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 41.3870, lng: 2.1700, name: 'Keyboard pin', categories: [7], geocode: false } });
  await centreOn(page, 41.387, 2.17, 16);
  const pin = page.getByRole('button', { name: 'Keyboard pin' });
  // Tab reaches the pin from the map.
  await page.locator('.leaflet-container').focus();
  await tabTo(page, pin);
  await page.keyboard.press('Enter');
  const details = page.getByRole('region', { name: 'POI details' });
  await expect(details.getByTestId('poi-title')).toHaveText('Keyboard pin');
  await page.keyboard.press('Escape');
  await expect(details).toHaveCount(0);
  await expect(page.locator('.leaflet-container')).toBeFocused();
  // Space works as Enter does.
  await pin.focus();
  await page.keyboard.press(' ');
  await expect(details.getByTestId('poi-title')).toHaveText('Keyboard pin');
  await page.keyboard.press('Escape');

  // Add at the centre: focus lands in the form's first field; Enter there saves.
  await page.getByRole('button', { name: 'Add a POI at the map centre' }).focus();
  await page.keyboard.press('Enter');
  const name = page.getByRole('form', { name: 'Add POI' }).getByLabel('Name', { exact: true });
  await expect(name).toBeFocused();
  await expect(page.locator('.map-crosshair')).toBeVisible();
  // Saved with nothing filled in: every problem at once, in a summary that takes focus and links to each field.
  const form = page.getByRole('form', { name: 'Add POI' });
  await page.keyboard.press('Enter');
  const summary = form.locator('.error-summary');
  await expect(summary).toBeFocused();
  // Categories are picked by name: the message says so, not "must list at least one category id" as before.
  await expect(summary.getByRole('link')).toHaveText(['Name: must not be empty', 'Categories: Choose at least one category']);
  await expect(form.getByRole('alert')).toHaveText(['must not be empty', 'Choose at least one category']);
  await tabTo(page, summary.getByRole('link', { name: /^Name/ }));
  await page.keyboard.press('Enter');
  await expect(name).toBeFocused();
  await page.keyboard.type('Added by keys');
  await tabTo(page, form.getByLabel('Categories', { exact: true }));
  await page.keyboard.press('ArrowDown');
  await tabTo(page, form.getByRole('button', { name: 'Save POI' }));
  await page.keyboard.press('Enter');
  // After Save, focus is on the result.
  await expect(details.getByTestId('poi-title')).toHaveText('Added by keys');
  await expect(details.getByTestId('poi-title')).toBeFocused();
  // At the centre, where the first pin is: the two now share a cluster.
  const [added] = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Added by keys' } });
  expect([added!.latitude, added!.longitude].map((v) => v.toFixed(3))).toEqual(['41.387', '2.170']);
  // Enter on that cluster zooms into it.
  const cluster = page.getByRole('button', { name: '2 POIs: zoom in' });
  const zoomOf = (): Promise<number> => page.evaluate(() => Number(/#map=(\d+)/.exec(location.hash)?.[1]));
  const before = await zoomOf();
  await cluster.focus();
  await page.keyboard.press('Enter');
  await expect.poll(zoomOf).toBeGreaterThan(before);
  // The cluster's marker went with the zoom: focus stays on the map, not back at the page's top.
  await expect(page.locator('.leaflet-container')).toBeFocused();
  // Escape on the add form cancels it, as its Cancel button does.
  await page.keyboard.press('Escape');
  await page.getByRole('button', { name: 'Add a POI at the map centre' }).focus();
  await page.keyboard.press('Enter');
  await expect(name).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('form', { name: 'Add POI' })).toHaveCount(0);
  // With something typed, Escape asks first: declined, the form and its text stay.
  await page.getByRole('button', { name: 'Add a POI at the map centre' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.type('Half typed');
  await page.keyboard.press('Escape');
  const discard = page.getByRole('alertdialog', { name: 'Discard what you typed' });
  await expect(discard).toContainText('Discard what you typed in this panel?');
  // Escape again answers the question (keep editing), not the form: it stays, and so does focus.
  await page.keyboard.press('Escape');
  await expect(discard).toHaveCount(0);
  await expect(name).toHaveValue('Half typed');
  await expect(name).toBeFocused();
  await page.keyboard.press('Escape');
  await discard.getByRole('button', { name: 'Discard it' }).click();
  await expect(page.getByRole('form', { name: 'Add POI' })).toHaveCount(0);

  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  const found = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Added by keys' } });
  for (const p of found) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: p.id });
});

test('at a phone width (390 px) the map stays the main surface, a POI is added by tapping it, and the panel folds away', async ({ app: page, info }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await centreOn(page, 41.3851, 2.1734, 15);
  const map = page.locator('.leaflet-container');
  const box = (await map.boundingBox())!;
  expect(box.width).toBe(390);
  expect(box.height).toBeGreaterThan(350);

  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const form = page.getByRole('form', { name: 'Add POI' });
  await expect(form).toBeVisible();
  await form.getByLabel('Name', { exact: true }).fill('Tapped on a phone');
  await form.getByLabel('Categories', { exact: true }).selectOption(['7']);
  await form.getByRole('button', { name: 'Save POI' }).click();
  const details = page.getByRole('region', { name: 'POI details' });
  await expect(details.getByTestId('poi-title')).toHaveText('Tapped on a phone');
  for (const control of await page.getByRole('navigation', { name: 'Panels' }).getByRole('button').all()) {
    expect((await control.boundingBox())!.height).toBeGreaterThanOrEqual(44);
  }
  await basemapDrawn(page);
  await page.screenshot({ path: screenshotPath('phone-layout') });

  // Folded, the sheet leaves the map nearly the whole screen; unfolded, the details are back.
  const toggle = page.getByRole('button', { name: 'Hide panel' });
  await toggle.click();
  await expect(details).toBeHidden();
  await expect.poll(async () => (await map.boundingBox())!.height).toBeGreaterThan(600);
  await page.getByRole('button', { name: 'Show panel' }).click();
  await expect(details.getByTestId('poi-title')).toHaveText('Tapped on a phone');

  const found = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Tapped on a phone' } });
  for (const p of found) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: p.id });
});

test('a skip link, first in Tab order and seen when focused, takes the keyboard past the map’s pins to the side panel', async ({ app: page }) => {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press('Tab');
  const skip = page.getByRole('link', { name: 'Skip to the side panel' });
  await expect(skip).toBeFocused();
  await expect(skip).toBeInViewport();
  const hash = await page.evaluate(() => location.hash);
  await page.keyboard.press('Enter');
  await expect(page.locator('#side-panel')).toBeFocused();
  // The address's fragment (the map view) is left as it was.
  expect(await page.evaluate(() => location.hash)).toBe(hash);
  // The next Tab is inside the panel, not on a pin.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.getElementById('side-panel')!.contains(document.activeElement))).toBe(true);
});

test('Enter on a POI’s Edit button puts focus in the form’s first field, where typing goes', async ({ app: page, info }) => {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 41.3902, lng: 2.1540, name: 'Edit by keys', categories: [7], geocode: false } });
  await centreOn(page, 41.3902, 2.154, 16);
  await page.getByRole('button', { name: 'Edit by keys' }).focus();
  await page.keyboard.press('Enter');
  const details = page.getByRole('region', { name: 'POI details' });
  await details.getByRole('button', { name: 'Edit' }).focus();
  await page.keyboard.press('Enter');
  const name = page.getByRole('form', { name: 'Edit POI' }).getByLabel('Name', { exact: true });
  await expect(name).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.type(', renamed');
  await expect(name).toHaveValue('Edit by keys, renamed');
  await page.keyboard.press('Enter');
  await expect(details.getByTestId('poi-title')).toHaveText('Edit by keys, renamed');
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
});

/** The words of the labels, buttons and headings in the side panel that the layout broke across two lines. */
async function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    const panel = document.getElementById('side-panel')!;
    for (const el of Array.from(panel.querySelectorAll<HTMLElement>('button, label, legend, th, dt, h2, h3'))) {
      if (el.getClientRects().length === 0) continue;
      const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, m.index);
          range.setEnd(node, m.index + m[0].length);
          // On two lines: tops a line apart. A glyph from a fallback font (the "…" of "Merge…") sits a
          // pixel or two off the others' top on the same line.
          const tops = Array.from(range.getClientRects()).map((r) => r.top);
          if (tops.length > 1 && Math.max(...tops) - Math.min(...tops) > 8) broken.push(m[0]);
        }
      }
    }
    return broken;
  });
}

test('at a phone width (390 px) and on a desktop, no label or button in the side panel breaks inside a word', async ({ app: page, info }) => {
  const spot = { lat: 41.3795, lng: 2.1802 };
  const a = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { ...spot, name: 'Kiosk Rambla del Mar', categories: [7], geocode: false } });
  const b = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { ...spot, name: 'Kiosk Rambla del Mar!', categories: [7], geocode: false } });
  // A second pair, left unopened: its "Merge…" stays a button (a class shared with the form's field
  // pairs made it a squeezed flex item, "Merge" over "…", once another pair was on the list).
  const elsewhere = { lat: 41.3851, lng: 2.1734 };
  const c = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { ...elsewhere, name: 'Café Plaza Nueva', categories: [7], geocode: false } });
  const d = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { ...elsewhere, name: 'Cafe Plaza Nueva.', categories: [7], geocode: false } });
  const tabs = page.getByRole('navigation', { name: 'Panels' });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 844 });
    await tabs.getByRole('button', { name: 'Duplicates' }).click();
    const pairs = page.getByRole('list', { name: 'Possible duplicates' });
    await expect(pairs.getByRole('button', { name: /^Merge “Kiosk Rambla del Mar/ }).first()).toBeVisible();
    await pairs.getByRole('button', { name: /^Merge “Kiosk Rambla del Mar/ }).first().click();
    expect(await brokenWords(page), `Duplicates at ${width} px`).toEqual([]);
    for (const name of ['Sync', 'Settings', 'Client applications', 'Members', 'Activity']) {
      await tabs.getByRole('button', { name }).click();
      await expect(page.locator('#side-panel h2').first()).toBeVisible();
      expect(await brokenWords(page), `${name} at ${width} px`).toEqual([]);
    }
  }
  for (const p of [a, b, c, d]) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: p.id });
});

test('the page has an icon of its own: no request for /favicon.ico fails', async ({ page, info }) => {
  const failed: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  await page.goto(info.url);
  await expect(page.locator('.leaflet-container')).toBeVisible();
  const icon = page.locator('link[rel="icon"]');
  await expect(icon).toHaveCount(1);
  // It loads under the page's Content-Security-Policy.
  const drawn = await icon.evaluate(
    (link: HTMLLinkElement) =>
      new Promise<number>((resolve) => {
        const img = new Image();
        img.onload = () => resolve(img.naturalWidth);
        img.onerror = () => resolve(0);
        img.src = link.href;
      }),
  );
  expect(drawn).toBeGreaterThan(0);
  expect(failed).toEqual([]);
});

test('Escape closes a panel, but asks first when something typed in it would be lost', async ({ app: page }) => {
  const panels = page.getByRole('toolbar', { name: 'Panels' });
  await panels.getByRole('button', { name: 'Members' }).click();
  // Nothing typed: closed at once, back to Search.
  await page.keyboard.press('Escape');
  await expect(panels.getByRole('button', { name: 'Search' })).toHaveAttribute('aria-pressed', 'true');
  await panels.getByRole('button', { name: 'Members' }).click();
  const username = page.getByLabel('Username').first();
  await username.fill('half-typed-member');
  await page.keyboard.press('Escape');
  await answerConfirm(page, 'Keep editing', 'Discard what you typed in this panel?');
  await expect(username).toHaveValue('half-typed-member');
  await expect(panels.getByRole('button', { name: 'Members' })).toHaveAttribute('aria-pressed', 'true');
  // Put back as it was: nothing to lose, nothing asked.
  await username.fill('');
  await page.keyboard.press('Escape');
  await expect(panels.getByRole('button', { name: 'Search' })).toHaveAttribute('aria-pressed', 'true');
});
