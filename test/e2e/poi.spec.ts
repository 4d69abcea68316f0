/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { answerConfirm, basemapDrawn, centreOn, consoleOp, expect, screenshotPath, test } from './fixtures.js';
import { E2E_TOKEN } from './info.js';

test.describe.configure({ mode: 'serial' });

test('add a POI by clicking the map, see its generated address, edit it, clear a field, move it, delete it', async ({ app: page }) => {
  await centreOn(page, 40.4169, -3.7035, 15);
  // Click the map where Puerta del Sol is (the centre of the map).
  const map = page.locator('.leaflet-container');
  const box = (await map.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);

  const form = page.getByRole('form', { name: 'Add POI' });
  await expect(form).toBeVisible();
  const lat = Number(await form.getByLabel('Latitude', { exact: true }).inputValue());
  const lng = Number(await form.getByLabel('Longitude', { exact: true }).inputValue());
  expect(lat).toBeCloseTo(40.4169, 2);
  expect(lng).toBeCloseTo(-3.7035, 2);

  await form.getByLabel('Name', { exact: true }).fill('Kilometre zero');
  await form.getByLabel('Description', { exact: true }).fill('The centre of the radial roads of Spain');
  await form.getByLabel('Categories', { exact: true }).selectOption(['7']);
  await form.getByLabel('Phone', { exact: true }).fill('+34 900 000 000');
  await expect(form.getByLabel('Fill empty address fields from the position (geocode)', { exact: true })).toBeChecked();
  await basemapDrawn(page);
  await page.screenshot({ path: screenshotPath('add-form') });
  await form.getByRole('button', { name: 'Save POI' }).click();

  const details = page.getByRole('region', { name: 'POI details' });
  await expect(details.getByTestId('poi-title')).toHaveText('Kilometre zero');
  await expect(details.locator('[data-field="city"]')).toHaveText('Madrid');
  await expect(details.locator('[data-field="country"]')).toHaveText('Spain');
  await expect(page.locator('.leaflet-marker-icon[title="Kilometre zero"]')).toBeVisible();

  // Edit: rename, and clear the description with its clear button.
  await details.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit POI' });
  await edit.getByLabel('Name', { exact: true }).fill('Puerta del Sol, km 0');
  await edit.getByRole('button', { name: 'Clear Description' }).click();
  await expect(edit.getByLabel('Description', { exact: true })).toHaveValue('');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(details.getByTestId('poi-title')).toHaveText('Puerta del Sol, km 0');
  await expect(details.locator('[data-field="desc"]')).toHaveText('—');
  await expect(details.locator('[data-field="phone"]')).toHaveText('+34 900 000 000');

  // The server refuses an empty name: the error sits next to the Name field.
  await details.getByRole('button', { name: 'Edit' }).click();
  await edit.getByLabel('Name', { exact: true }).fill('');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await expect(edit.locator('.field-error').filter({ has: page.getByLabel('Name', { exact: true }) }).getByRole('alert')).toContainText('cannot be deleted');
  await edit.getByRole('button', { name: 'Cancel' }).click();

  // Move: drag the marker, confirm.
  const marker = page.locator('.leaflet-marker-icon[title="Puerta del Sol, km 0"]');
  const from = (await marker.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + 60, from.y + from.height / 2 + 40, { steps: 8 });
  await page.mouse.up();
  await answerConfirm(page, 'Move', 'Move “Puerta del Sol, km 0” to');
  await expect(details.locator('dd').first()).not.toContainText(String(lat.toFixed(4)));
  await expect
    .poll(async () => {
      const text = (await details.locator('dd').first().textContent()) ?? '';
      return Number(text.split(',')[1]);
    })
    .toBeGreaterThan(lng);

  // Delete, confirming.
  await details.getByRole('button', { name: 'Delete POI' }).click();
  await answerConfirm(page, 'Delete POI');
  await expect(page.locator('.leaflet-marker-icon[title="Puerta del Sol, km 0"]')).toHaveCount(0);
});

test('a POI name is shown as text, never run', async ({ app: page, info }) => {
  const evil = '<img src=x onerror="window.__xss=1">';
  let dialogs = 0;
  page.on('dialog', (d) => {
    dialogs++;
    void d.dismiss();
  });
  const r = await fetch(
    `${new URL(info.url).origin}/console/api/pois.add`,
    { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${E2E_TOKEN}` }, body: JSON.stringify({ clientId: info.clientId, fields: { lat: 48.8584, lng: 2.2945, name: evil, desc: '<script>window.__xss=2</script>', categories: [7] } }) },
  );
  expect(r.status).toBe(200);
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Search' }).click();
  await page.getByLabel('Search (name and description)', { exact: true }).fill('onerror');
  await page.getByRole('button', { name: 'Find' }).click();
  const result = page.getByRole('list', { name: 'Search results' }).getByRole('button');
  await expect(result).toHaveText(evil);
  await result.click();
  const details = page.getByRole('region', { name: 'POI details' });
  await expect(details.getByTestId('poi-title')).toHaveText(evil);
  await expect(details.locator('[data-field="desc"]')).toHaveText('<script>window.__xss=2</script>');
  await expect(page.locator('.leaflet-marker-icon').and(page.locator(`[title="${evil.replace(/"/g, '\\"')}"]`))).toHaveCount(1);
  expect(await page.locator('img[src="x"]').count()).toBe(0);
  expect(await page.evaluate(() => (window as { __xss?: number }).__xss)).toBeUndefined();
  expect(dialogs).toBe(0);
});

test('a POI’s details keep its description’s line breaks and show its position to 6 decimals, as Activity does; the delete says it can be restored', async ({ app: page, info }) => {
  const clientId = info.clientId;
  const poi = await consoleOp<PoiReply>(page, 'pois.add', {
    clientId,
    fields: { lat: 37.76331908593623, lng: -122.41234567890123, name: 'Mission Dolores Park', desc: 'Open 6 am to 10 pm.\nDogs welcome.', categories: [7], geocode: false },
  });
  // Where a drag on the map leaves it: 14 decimals.
  await consoleOp(page, 'pois.update', { clientId, fields: { poi: poi.id, lat: 37.76341908593623, lng: -122.41234567890123 } });
  await centreOn(page, 37.7634, -122.4123, 16);
  await page.getByRole('button', { name: 'Mission Dolores Park', exact: true }).click();
  const details = page.getByRole('region', { name: 'POI details' });
  await expect(details.locator('[data-field="position"]')).toHaveText('37.763419, -122.412346');
  // Two lines, as typed.
  expect(await details.locator('[data-field="desc"]').evaluate((dd: HTMLElement) => dd.innerText)).toBe('Open 6 am to 10 pm.\nDogs welcome.');

  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Activity' }).click();
  const activity = page.getByRole('region', { name: 'Activity' });
  await expect(activity.getByText('Latitude: 37.763319 → 37.763419')).toBeVisible();
  await expect(activity).not.toContainText('37.7634190859');

  await page.getByRole('button', { name: 'Mission Dolores Park', exact: true }).click();
  await details.getByRole('button', { name: 'Delete POI' }).click();
  await expect(page.getByRole('alertdialog', { name: 'Delete a POI' })).not.toContainText('cannot be undone');
  await answerConfirm(page, 'Keep', 'You can bring it back from the Activity panel');
  await consoleOp(page, 'pois.delete', { clientId, poi: poi.id });
});

test('the pending marker of a new POI follows the coordinates typed into the form', async ({ app: page }) => {
  await centreOn(page, 48.8566, 2.3522, 15);
  const map = page.locator('.leaflet-container');
  const box = (await map.boundingBox())!;
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  await page.mouse.click(centre.x + 120, centre.y - 80);
  const form = page.getByRole('form', { name: 'Add POI' });
  await expect(form).toBeVisible();
  // The drop's tip, where the POI is: the marker's anchor, bottom centre of its 22 px box.
  // How far (px) it is from a point on screen; within 2 px is on it (rounding of the projection).
  const offFrom = async (x: number, y: number): Promise<number> => {
    const r = (await page.locator('.poi-pin-draft').boundingBox())!;
    return Math.round(Math.hypot(r.x + r.width / 2 - x, r.y + r.height - y));
  };
  expect(await offFrom(centre.x + 120, centre.y - 80)).toBeLessThanOrEqual(2);
  await form.getByLabel('Latitude').fill('48.8566');
  await form.getByLabel('Longitude').fill('2.3522');
  await expect.poll(() => offFrom(centre.x, centre.y)).toBeLessThanOrEqual(2);
  // A value the map cannot show (half typed, or out of range) leaves the marker where it was.
  await form.getByLabel('Latitude').fill('123');
  await page.waitForTimeout(200);
  expect(await offFrom(centre.x, centre.y)).toBeLessThanOrEqual(2);
  await form.getByRole('button', { name: 'Cancel' }).click();
});
