/// <reference lib="dom" />
import { expect, test } from './fixtures.js';
import { E2E_TOKEN } from './info.js';

/**
 * The desktop app's link path, in Chromium: Electron cannot run here, so its preload bridge is
 * stood in for by one that speaks HTTP to browser mode (as the browser build does) and records
 * `app.openExternal` instead of reaching a shell. What is tested is the page's side: a click on
 * the map's attribution asks to open that link, and the window stays on the app.
 */
test('in the desktop app, clicking the attribution asks the shell to open the link, and the app stays', async ({ page, info }) => {
  await page.addInitScript((token) => {
    const opened: unknown[] = [];
    Object.assign(window, {
      __opened: opened,
      poiConsole: {
        invoke: async (op: string, input: unknown) => {
          if (op === 'app.openExternal') {
            opened.push(input);
            return { ok: true, value: { code: 200, description: 'OK' } };
          }
          const reply = await fetch(`/console/api/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(input) });
          return reply.json();
        },
      },
    });
  }, E2E_TOKEN);
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  await page.goto(info.url);
  // Offline, the credit shown is the bundled map's (the tile server's shows once its tiles draw).
  const link = page.locator('.leaflet-control-attribution a[href="https://www.naturalearthdata.com/"]');
  await expect(link).toBeVisible();
  // The same document afterwards: marked now, still marked then (the map may move the address's #map= meanwhile).
  await page.evaluate(() => ((window as unknown as { __stayed: boolean }).__stayed = true));
  const before = new URL(page.url());
  await link.click();
  await expect.poll(() => page.evaluate(() => (window as unknown as { __opened: unknown[] }).__opened)).toEqual([
    { url: 'https://www.naturalearthdata.com/' },
  ]);
  const after = new URL(page.url());
  expect([after.origin, after.pathname]).toEqual([before.origin, before.pathname]);
  expect(await page.evaluate(() => (window as unknown as { __stayed?: boolean }).__stayed)).toBe(true);
});
