/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { centreOn, consoleOp, expect, test } from './fixtures.js';

/**
 * The service gone (its requests refused at the network, as when the server process has died):
 * a banner says so and retries by itself, Save says so at its button, and what was typed stays.
 * Before, "Failed to fetch" appeared at the top of the form, out of view, and nothing else.
 */
test('while the service cannot be reached, a banner says so and retries, Save says so at its button, and nothing typed is lost', async ({ app: page, info }) => {
  await centreOn(page, 45.4642, 9.19, 15);
  const map = page.locator('.leaflet-container');
  const box = (await map.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  const form = page.getByRole('form', { name: 'Add POI' });
  await form.getByLabel('Name', { exact: true }).fill('Saved once it is back');
  await form.getByLabel('Categories', { exact: true }).selectOption(['7']);

  await page.route('**/console/api/**', (route) => route.abort('connectionrefused'));
  const save = form.getByRole('button', { name: 'Save POI' });
  await save.click();
  const banner = page.getByRole('alert').filter({ hasText: 'The service cannot be reached' });
  await expect(banner).toBeVisible();
  const atButton = form.locator('.form-error');
  await expect(atButton).toContainText('could not be reached');
  // Said where the person is looking: next to the button, both on screen.
  await expect(atButton).toBeInViewport();
  await expect(save).toBeInViewport();
  await expect(form.getByLabel('Name', { exact: true })).toHaveValue('Saved once it is back');
  // It tries again by itself: the countdown restarts after a failed try.
  await expect(banner).toContainText(/Trying again in \d+ s/);

  await page.unroute('**/console/api/**');
  // The banner's own countdown may find the service first and take the button away under the
  // click (a CI run waited 60 s on it); else Try now finds it at once, well before the countdown.
  await banner.getByRole('button', { name: 'Try now' }).click({ timeout: 2000 }).catch(() => undefined);
  await expect(banner).toHaveCount(0, { timeout: 3000 });
  await save.click();
  await expect(page.getByRole('region', { name: 'POI details' }).getByTestId('poi-title')).toHaveText('Saved once it is back');
  const found = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Saved once it is back' } });
  expect(found).toHaveLength(1);
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: found[0]!.id });
});

test('the banner goes by itself once the service answers again, and the map reads what changed meanwhile', async ({ app: page, info }) => {
  await centreOn(page, 45.07, 7.686, 15);
  await page.route('**/console/api/**', (route) => route.abort('connectionrefused'));
  const banner = page.getByRole('alert').filter({ hasText: 'The service cannot be reached' });
  // The map's own polling finds it out, with nothing clicked.
  await expect(banner).toBeVisible({ timeout: 10_000 });
  // Written meanwhile by someone else (consoleOp's requests do not go through the page's routes).
  await consoleOp(page, 'pois.add', { clientId: info.clientId, fields: { lat: 45.07, lng: 7.686, name: 'Added while away', categories: [7], geocode: false } });
  await page.unroute('**/console/api/**');
  await expect(banner).toHaveCount(0, { timeout: 15_000 });
  await expect(page.getByRole('button', { name: 'Added while away' })).toBeVisible();
  const [poi] = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Added while away' } });
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi!.id });
});
