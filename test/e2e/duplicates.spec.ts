/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { answerConfirm, centreOn, consoleOp, expect, test } from './fixtures.js';

test.describe.configure({ mode: 'serial' });

/** Seville's Plaza Nueva: no other test puts POIs here. */
const SPOT = { lat: 37.38887, lng: -5.99526 };

test('the add form flags a similar name nearby as a possible duplicate, links to it, and still saves', async ({ app: page, info }) => {
  const first = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { ...SPOT, name: 'Café Plaza Nueva', categories: [2], geocode: false } });
  await centreOn(page, SPOT.lat, SPOT.lng, 18);

  // Start adding another at the same spot (the map centre), by keyboard.
  const addHere = page.getByRole('button', { name: 'Add a POI at the map centre' });
  await addHere.focus();
  await page.keyboard.press('Enter');
  const form = page.getByRole('form', { name: 'Add POI' });
  const name = form.getByLabel('Name', { exact: true });
  await expect(name).toBeFocused();
  const notice = form.getByRole('status');
  await expect(notice).toBeEmpty();
  await page.keyboard.type('cafe plaza nueva!');
  await expect(notice).toContainText(/Possible duplicate of Café Plaza Nueva \(\d+ m away\)/);
  // A different name at the same spot is no duplicate: the notice goes.
  await name.fill('Farmacia Nueva');
  await expect(notice).toBeEmpty();
  await name.fill('CAFE PLAZA NUEVA');
  const link = notice.getByRole('button', { name: 'Café Plaza Nueva' });
  await expect(link).toBeVisible();

  // Following it, by keyboard, opens that POI once the user agrees to leave what was typed.
  await link.focus();
  await page.keyboard.press('Enter');
  await answerConfirm(page, 'Open it', 'What you typed here is not saved');
  const details = page.getByRole('region', { name: 'POI details' });
  await expect(details.getByTestId('poi-title')).toHaveText('Café Plaza Nueva');
  await page.keyboard.press('Escape');

  // Never blocking: the similar POI is saved all the same.
  await addHere.click();
  await name.fill('Cafe Plaza Nueva.');
  await expect(notice).toContainText('Possible duplicate of Café Plaza Nueva');
  await form.getByLabel('Categories', { exact: true }).selectOption(['2']);
  await form.getByLabel('Fill empty address fields from the position (geocode)', { exact: true }).uncheck();
  await form.getByRole('button', { name: 'Save POI' }).click();
  await expect(details.getByTestId('poi-title')).toHaveText('Cafe Plaza Nueva.');
  const both = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'plaza nueva' } });
  expect(both.map((p) => p.name).sort()).toEqual(['Cafe Plaza Nueva.', 'Café Plaza Nueva']);

  // Its edit form names the first as a possible duplicate, not the POI itself.
  await details.getByRole('button', { name: 'Edit' }).click();
  const edit = page.getByRole('form', { name: 'Edit POI' });
  await expect(edit.getByRole('status').getByRole('listitem')).toHaveCount(1);
  await expect(edit.getByRole('status').getByRole('button', { name: 'Café Plaza Nueva' })).toBeVisible();
  expect(first.id).not.toBe(both.find((p) => p.name === 'Cafe Plaza Nueva.')!.id);
});
