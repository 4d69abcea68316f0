/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { centreOn, consoleOp, expect, test } from './fixtures.js';

test('the search list says how many match, pages through all of them, and a result moves the map and the address', async ({ app: page, info }) => {
  const added: PoiReply[] = [];
  for (let i = 0; i < 60; i++) added.push(await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 43.2630 + i / 1e4, lng: -2.9350, name: `Paged stop ${i}`, categories: [7], geocode: false } }));
  try {
    await page.getByLabel('Search (name and description)').fill('Paged stop');
    await page.getByRole('button', { name: 'Find' }).click();
    const results = page.getByRole('list', { name: 'Search results' });
    await expect(page.locator('.results-count')).toHaveText('1–50 of 60');
    await expect(results.getByRole('listitem')).toHaveCount(50);
    const pages = page.getByRole('group', { name: 'Pages of results' });
    await pages.getByRole('button', { name: 'Next 50' }).click();
    await expect(page.locator('.results-count')).toHaveText('51–60 of 60');
    await expect(results.getByRole('listitem')).toHaveCount(10);
    await expect(pages.getByRole('button', { name: 'Next 50' })).toBeDisabled();
    await pages.getByRole('button', { name: 'Previous 50' }).click();
    await expect(page.locator('.results-count')).toHaveText('1–50 of 60');
    await pages.getByRole('button', { name: 'Next 50' }).click();
    // A result opens its POI and moves the map there: the address names the new view.
    await results.getByRole('button', { name: 'Paged stop 59' }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/^#map=\d+\/43\.26\d+\/-2\.935\d*$/);
  } finally {
    for (const p of added) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: p.id });
  }
});

test('while a search filters the map, the map says so, and Show all brings every POI back', async ({ app: page, info }) => {
  const shown = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 47.3769, lng: 8.5417, name: 'Filter kept', categories: [7], geocode: false } });
  const hidden = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 47.3772, lng: 8.5430, name: 'Filter hides', categories: [7], geocode: false } });
  try {
    await centreOn(page, 47.377, 8.542, 16);
    const filterNote = page.getByRole('status').filter({ hasText: 'Only POIs matching' });
    await expect(filterNote).toHaveCount(0);
    await page.getByLabel('Search (name and description)').fill('Filter kept');
    await page.getByRole('button', { name: 'Find' }).click();
    await expect(page.getByRole('button', { name: 'Filter hides' })).toHaveCount(0);
    await expect(filterNote).toHaveText(/Only POIs matching “Filter kept”/);
    await filterNote.getByRole('button', { name: 'Show all' }).click();
    await expect(filterNote).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Filter hides' })).toBeVisible();
    await expect(page.getByLabel('Search (name and description)')).toHaveValue('');
  } finally {
    for (const p of [shown, hidden]) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: p.id });
  }
});
