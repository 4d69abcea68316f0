/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import type { Locator } from '@playwright/test';
import { basemapDrawn, centreOn, consoleOp, expect, screenshotPath, test, type Page } from './fixtures.js';

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
  await expect(summary.getByRole('link')).toHaveText(['Name: must not be empty', 'Categories: must list at least one category id']);
  await expect(form.getByRole('alert')).toHaveText(['must not be empty', 'must list at least one category id']);
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
  page.once('dialog', (dialog) => void dialog.dismiss());
  await page.keyboard.press('Escape');
  await expect(name).toHaveValue('Half typed');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.keyboard.press('Escape');
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
