/// <reference lib="dom" />
import { test as base, expect, type Page } from '@playwright/test';
import { E2E_TOKEN, e2eInfo, type E2eInfo } from './info.js';

/** Calls a console operation with the console token, as the UI does. */
export async function consoleOp<T>(page: Page, op: string, input: unknown): Promise<T> {
  const response = await page.request.post(`/console/api/${op}`, { data: input, headers: { authorization: `Bearer ${E2E_TOKEN}` } });
  const answer = (await response.json()) as { ok: boolean; value: T; error: unknown };
  if (!answer.ok) throw new Error(`${op} refused: ${JSON.stringify(answer.error)}`);
  return answer.value;
}

export const test = base.extend<{ app: Page; info: E2eInfo }>({
  info: async ({}, use) => {
    await use(e2eInfo());
  },
  /** The admin UI, opened through its address (token in the fragment), with tile servers unreachable (as offline). */
  app: async ({ page, info }, use) => {
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
    await page.goto(info.url);
    await expect(page.locator('.leaflet-container')).toBeVisible();
    await expect(page.locator('.leaflet-container')).toHaveAttribute('data-points-drawn', /\d+/);
    // The map has opened where it opens (around the client's POIs): it moves no more by itself.
    await expect(page.locator('.leaflet-container')).toHaveAttribute('data-start-view', 'settled');
    await use(page);
  },
});

export { expect };
export type { Page };

/** Moves the map so that (lat, lng) is at the centre at the given zoom (through the #map= hash). */
export async function centreOn(page: Page, lat: number, lng: number, zoom: number): Promise<void> {
  const before = await page.evaluate(() => performance.getEntriesByName('poi-map-drawn').length);
  await page.evaluate(([la, ln, z]) => {
    location.hash = `#map=${z}/${la}/${ln}`;
  }, [lat, lng, zoom] as const);
  await expect.poll(() => page.evaluate(() => performance.getEntriesByName('poi-map-drawn').length)).toBeGreaterThan(before);
}

/**
 * Where a screenshot goes: the README's pictures are refreshed only on purpose
 * (`UPDATE_SCREENSHOTS=1 npm test -- --e2e-only`); ordinary runs keep theirs with the results.
 */
export const screenshotPath = (name: string): string =>
  process.env.UPDATE_SCREENSHOTS ? `test/e2e/screenshots/${name}.png` : `test/results/screenshots/${name}.png`;

/** Waits until every basemap tile in view is drawn (they are drawn when the page is idle) and faded in. */
export async function basemapDrawn(page: Page): Promise<void> {
  await expect(page.locator('.leaflet-basemap-pane .leaflet-tile-loaded').first()).toBeAttached();
  await expect(page.locator('.leaflet-basemap-pane .leaflet-tile:not(.leaflet-tile-loaded)')).toHaveCount(0);
  await page.waitForTimeout(300);
}

/**
 * Answers the page's confirmation (renderer/src/ui/Confirm.tsx) with the button that says what to
 * do, once it asks (and, given, says) `text`; then it is gone.
 */
export async function answerConfirm(page: Page, button: string, text?: string | RegExp): Promise<void> {
  const question = page.getByRole('alertdialog');
  await expect(question).toBeVisible();
  if (text !== undefined) await expect(question).toContainText(text);
  await question.getByRole('button', { name: button, exact: true }).click();
  await expect(question).toHaveCount(0);
}

/**
 * Opens each panel of the top bar's toolbar in turn (by `tap` on a touch screen) and calls `each`
 * with its label once it is shown: what the audits of every panel go through.
 */
export async function forEachPanel(page: Page, how: 'click' | 'tap', each: (label: string) => Promise<void>): Promise<void> {
  const panels = page.getByRole('toolbar', { name: 'Panels' });
  for (const label of await panels.getByRole('button').allTextContents()) {
    const button = panels.getByRole('button', { name: label, exact: true });
    await (how === 'tap' ? button.tap() : button.click());
    await expect(button).toHaveAttribute('aria-pressed', 'true');
    // Panels that list what they read draw it a moment later.
    await page.waitForTimeout(300);
    await each(label);
  }
}
