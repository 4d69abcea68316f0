/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { consoleOp, expect, test } from './fixtures.js';

test('a POI\'s details show its history: who changed what, when, old and new values', async ({ app: page, info }) => {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 39.4699, lng: -0.3763, name: 'Mercat', phone: '+34 1', categories: [5], geocode: false } });
  try {
    await consoleOp(page, 'pois.update', { clientId: info.clientId, fields: { poi: poi.id, name: 'Mercat Central', phone: null } });
    await page.getByLabel('Search (name and description)').fill('Mercat');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('list', { name: 'Search results' }).getByRole('button', { name: 'Mercat Central' }).click();
    await page.getByText('History (2 changes)').click();
    const changes = page.getByRole('list', { name: 'Changes, newest first' });
    await expect(changes.getByRole('listitem').first()).toContainText('changed by the console');
    await expect(changes).toContainText('Name: Mercat → Mercat Central');
    await expect(changes).toContainText('Phone: +34 1 → —');
    await expect(changes.getByRole('listitem').last()).toContainText('created by the console');
  } finally {
    await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  }
});
