/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserMode, type RunningConsole } from '../../main/app/browser-mode.js';
import { openCore } from '../support/core.js';
import { prepareDataDir } from '../../main/data-dir.js';
import { freePort } from '../support/free-port.js';
import { expect, test, type Page } from './fixtures.js';

/**
 * Where the map opens, each on a data folder of its own (the shared e2e server has one client
 * and the POIs of every other test): with no client application at all, and around a client's
 * POIs far from the sample city.
 */
let dir: string;
let running: RunningConsole | undefined;

async function start(seed: (core: ReturnType<typeof openCore>) => Promise<void>): Promise<RunningConsole> {
  dir = mkdtempSync(join(tmpdir(), 'poi-e2e-map-start-'));
  const file = prepareDataDir(dir);
  const core = openCore({ file });
  core.settings.setMap({ ...core.settings.map(), tileCacheMb: 0 });
  await seed(core);
  core.close();
  running = await startBrowserMode({ file, port: await freePort(), token: 'map-start-console-token', log: () => undefined });
  return running;
}
test.afterEach(async () => {
  await running?.stop();
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** The pins drawn, as their names, once the map has drawn an answer. */
async function pinsShown(page: Page): Promise<string[]> {
  const map = page.locator('.leaflet-container');
  const box = (await map.boundingBox())!;
  return page.locator('.poi-pin').evaluateAll(
    (pins, b) =>
      pins
        .filter((p) => {
          const r = p.getBoundingClientRect();
          return r.left >= b.x && r.right <= b.x + b.width && r.top >= b.y && r.bottom <= b.y + b.height;
        })
        .map((p) => p.getAttribute('aria-label') ?? '')
        .sort(),
    box,
  );
}

test('with no client application yet, the map is there, and a click on it offers to create one', async ({ page }) => {
  const { url } = await start(async () => undefined);
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  await page.goto(url);
  const map = page.locator('.leaflet-container');
  await expect(map).toBeVisible();
  // The sample city's streets, as on any first start.
  await expect(page.locator('.leaflet-tile-loaded').first()).toBeAttached();
  const box = (await map.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const add = page.getByRole('region', { name: 'Add POI' });
  await expect(add).toContainText('there is none yet');
  await add.getByRole('button', { name: 'Create a client application' }).click();
  await expect(page.getByRole('button', { name: 'Client applications', pressed: true })).toBeVisible();
  const create = page.getByRole('form', { name: 'Create a client application' });
  await create.getByLabel('Name', { exact: true }).fill('First team');
  await create.getByRole('button', { name: 'Create client' }).click();
  // The first client is shown at once: the token's note does not ask to select it.
  const token = page.getByTestId('admin-token');
  await expect(token).toContainText('Once it is saved, press Done.');
  await expect(page.getByLabel('Client application', { exact: true })).toHaveText('First team');
  await token.getByRole('button', { name: 'Done', exact: true }).click();
  await expect(token).toHaveCount(0);
});

test('a new tab opens around the client’s POIs, and on the other client’s when it is chosen', async ({ page }) => {
  const { url } = await start(async (core) => {
    const lyon = core.clients.create({ name: 'Lyon team' }).client_id;
    const osaka = core.clients.create({ name: 'Osaka team' }).client_id;
    for (const [name, lat, lng] of [['Fourvière', 45.7623, 4.8227], ['Part-Dieu', 45.7606, 4.8593], ['Confluence', 45.7405, 4.8183]] as const) {
      await core.console['pois.add']({ clientId: lyon, fields: { lat, lng, name, categories: [1], geocode: false } });
    }
    for (const [name, lat, lng] of [['Umeda', 34.7025, 135.4959], ['Namba', 34.6661, 135.5007]] as const) {
      await core.console['pois.add']({ clientId: osaka, fields: { lat, lng, name, categories: [1], geocode: false } });
    }
  });
  await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort());
  await page.goto(url);
  await expect(page.getByLabel('Client application')).toHaveText(/Lyon team/);
  await expect.poll(() => pinsShown(page)).toEqual(['Confluence', 'Fourvière', 'Part-Dieu']);
  // Around them, not a whole country: the three fill the view.
  const zoom = (): Promise<number> => page.evaluate(() => Number(/#map=(\d+)/.exec(location.hash)?.[1]));
  expect(await zoom()).toBeGreaterThanOrEqual(12);

  await page.getByLabel('Client application').selectOption({ label: 'Osaka team' });
  await expect.poll(() => pinsShown(page)).toEqual(['Namba', 'Umeda']);
  expect(await zoom()).toBeGreaterThanOrEqual(12);
});
