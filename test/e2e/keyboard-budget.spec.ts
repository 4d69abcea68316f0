/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { centreOn, consoleOp, expect, test, type Page } from './fixtures.js';

test.describe.configure({ mode: 'serial' });

/**
 * Every task by keyboard alone, from the map, with 100 pins on screen: each in at most 10 key
 * presses. What is typed into a field (a name) is not counted; every other key is. Before the
 * pins were one Tab stop, the side panel was 100 Tabs away.
 */
const BUDGET = 10;
/** 10 × 10 pins 0.0016° apart: 75 px at zoom 16, more than the map grid's 64 px cells, so none share a cluster. */
const STEP = 0.0016;
const ORIGIN = { lat: 0.3, lng: 9.5 };
const ZOOM = 16;
const nameAt = (row: number, col: number): string => `Grid ${row}-${col}`;

class Keys {
  count = 0;
  constructor(private readonly page: Page) {}
  async press(...keys: string[]): Promise<void> {
    for (const key of keys) {
      await this.page.keyboard.press(key);
      this.count += 1;
    }
  }
}

/** Starts a task where a keyboard user is: focus on the map. */
async function fromTheMap(page: Page): Promise<Keys> {
  await page.locator('.leaflet-container').focus();
  return new Keys(page);
}

test.beforeAll(async ({ browser }) => {
  const page = await browser.newPage();
  const { e2eInfo } = await import('./info.js');
  const info = e2eInfo();
  await page.goto(info.url);
  for (let row = 0; row < 10; row++) {
    for (let col = 0; col < 10; col++) {
      await consoleOp(page, 'pois.add', { clientId: info.clientId, fields: { lat: ORIGIN.lat + row * STEP, lng: ORIGIN.lng + col * STEP, name: nameAt(row, col), categories: [7], geocode: false } });
    }
  }
  await page.close();
});

test.afterAll(async ({ browser }) => {
  const page = await browser.newPage();
  const { e2eInfo } = await import('./info.js');
  const info = e2eInfo();
  await page.goto(info.url);
  const found = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Grid' } });
  for (const p of found) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: p.id });
  await page.close();
});

test.beforeEach(async ({ app: page }) => {
  await page.setViewportSize({ width: 1600, height: 1000 });
  // The grid's middle at the centre: rows 0-9 north-up, columns 0-9 west to east.
  await centreOn(page, ORIGIN.lat + 4.5 * STEP, ORIGIN.lng + 4.5 * STEP, ZOOM);
  await expect(page.locator('.leaflet-container')).toHaveAttribute('data-points-drawn', '100');
});

test('open a pin: Tab to the pins, arrows to the one wanted, Enter; focus goes to its name', async ({ app: page }) => {
  const keys = await fromTheMap(page);
  await keys.press('Tab');
  // The one Tab stop is the pin nearest the centre: one of the middle four.
  const first = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
  expect(['Grid 4-4', 'Grid 4-5', 'Grid 5-4', 'Grid 5-5']).toContain(first);
  const [row, col] = /Grid (\d)-(\d)/.exec(first!)!.slice(1).map(Number) as [number, number];
  // Two to the east, one to the north (rows count northwards).
  await keys.press('ArrowRight', 'ArrowRight', 'ArrowUp', 'Enter');
  const details = page.getByRole('region', { name: 'POI details' });
  await expect(details.getByTestId('poi-title')).toHaveText(nameAt(row + 1, col + 2));
  await expect(details.getByTestId('poi-title')).toBeFocused();
  expect(keys.count).toBeLessThanOrEqual(BUDGET);
});

test('open a pin, edit it and save it', async ({ app: page, info }) => {
  const keys = await fromTheMap(page);
  await keys.press('Tab', 'ArrowLeft', 'Enter');
  const details = page.getByRole('region', { name: 'POI details' });
  const opened = (await details.getByTestId('poi-title').textContent())!;
  await keys.press('e');
  const form = page.getByRole('form', { name: 'Edit POI' });
  await expect(form.getByLabel('Name', { exact: true })).toBeFocused();
  await page.keyboard.press('End');
  await page.keyboard.type(' (edited)');
  await keys.press('Control+Enter');
  await expect(details.getByTestId('poi-title')).toHaveText(`${opened} (edited)`);
  const [saved] = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: `${opened} (edited)` } });
  expect(saved?.name).toBe(`${opened} (edited)`);
  expect(keys.count).toBeLessThanOrEqual(BUDGET);
});

test('add a POI at the map centre', async ({ app: page, info }) => {
  const keys = await fromTheMap(page);
  await keys.press('a');
  const form = page.getByRole('form', { name: 'Add POI' });
  await expect(form.getByLabel('Name', { exact: true })).toBeFocused();
  await page.keyboard.type('Added within budget');
  // Latitude, Longitude, then Categories; the first category; save from there.
  await keys.press('Tab', 'Tab', 'Tab');
  await expect(form.getByLabel('Categories', { exact: true })).toBeFocused();
  await keys.press('ArrowDown', 'Control+Enter');
  await expect(page.getByRole('region', { name: 'POI details' }).getByTestId('poi-title')).toHaveText('Added within budget');
  const [added] = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Added within budget' } });
  expect(added?.latitude).toBeCloseTo(ORIGIN.lat + 4.5 * STEP, 4);
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: added!.id });
  expect(keys.count).toBeLessThanOrEqual(BUDGET);
});

test('open and close every panel', async ({ app: page }) => {
  const panels = page.getByRole('toolbar', { name: 'Panels' });
  const labels = await panels.getByRole('button').allTextContents();
  expect(labels[0]).toBe('Search');
  expect(labels.length).toBeGreaterThanOrEqual(11);
  for (const [index, label] of labels.entries()) {
    if (index === 0) continue;
    const keys = await fromTheMap(page);
    // Back past the shortcuts button to the toolbar, whose one stop is Search; then the shorter way round.
    await keys.press('Shift+Tab', 'Shift+Tab');
    await expect(panels.getByRole('button', { name: 'Search' })).toBeFocused();
    const right = index;
    const left = labels.length - index;
    for (let i = 0; i < Math.min(right, left); i++) await keys.press(right <= left ? 'ArrowRight' : 'ArrowLeft');
    await keys.press('Enter');
    await expect(panels.getByRole('button', { name: label, exact: true })).toHaveAttribute('aria-pressed', 'true');
    await keys.press('Escape');
    await expect(panels.getByRole('button', { name: 'Search', exact: true })).toHaveAttribute('aria-pressed', 'true');
    await expect(page.locator('.leaflet-container')).toBeFocused();
    expect(keys.count, label).toBeLessThanOrEqual(BUDGET);
  }
  // Search itself: `/` opens it with the keyboard in its field.
  const keys = await fromTheMap(page);
  await keys.press('/');
  await expect(page.getByLabel('Search (name and description)')).toBeFocused();
  expect(keys.count).toBeLessThanOrEqual(BUDGET);
});

test('open and close the map layers: L, then Escape', async ({ app: page }) => {
  const keys = await fromTheMap(page);
  await keys.press('l');
  const layers = page.getByRole('region', { name: 'Map layers' }).or(page.getByRole('dialog', { name: 'Map layers' }));
  await expect(layers).toBeVisible();
  await expect(layers.getByRole('checkbox').first()).toBeFocused();
  await keys.press('Escape');
  await expect(layers).toBeHidden();
  expect(keys.count).toBeLessThanOrEqual(BUDGET);
});

test('open and close the keyboard shortcuts: ?, then Escape', async ({ app: page }) => {
  const keys = await fromTheMap(page);
  await keys.press('Shift+?');
  const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await expect(help).toBeVisible();
  await expect(help.getByRole('button', { name: 'Close' })).toBeFocused();
  await expect(help).toContainText('Add a POI at the map centre');
  await keys.press('Escape');
  await expect(help).toBeHidden();
  await expect(page.locator('.leaflet-container')).toBeFocused();
  expect(keys.count).toBeLessThanOrEqual(BUDGET);
});

test('] and [ open the POIs on the map one after another, in reading order', async ({ app: page }) => {
  const keys = await fromTheMap(page);
  const title = page.getByRole('region', { name: 'POI details' }).getByTestId('poi-title');
  await keys.press(']');
  // Reading order: the northern row first (row 9), west to east.
  await expect(title).toHaveText(nameAt(9, 0));
  await keys.press(']');
  await expect(title).toHaveText(nameAt(9, 1));
  await keys.press('[', '[');
  await expect(title).toHaveText(nameAt(0, 9));
});
