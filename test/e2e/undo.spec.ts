/// <reference lib="dom" />
import type { PoiReply } from '../../shared/wire.js';
import { consoleOp, expect, test } from './fixtures.js';

test("undo from a POI's history puts its old values back, and the undo is in the history", async ({ app: page, info }) => {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 39.47, lng: -0.3765, name: 'Llotja', phone: '+34 2', categories: [5], geocode: false } });
  try {
    await consoleOp(page, 'pois.update', { clientId: info.clientId, fields: { poi: poi.id, name: 'Llotja de la Seda', phone: null } });
    await page.getByLabel('Search (name and description)').fill('Llotja');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('list', { name: 'Search results' }).getByRole('button', { name: 'Llotja de la Seda' }).click();
    await page.getByText('History (2 changes)').click();
    await page.getByRole('button', { name: 'Undo the last change' }).click();
    await expect(page.getByRole('heading', { name: 'Llotja', exact: true })).toBeVisible();
    const changes = page.getByRole('list', { name: 'Changes, newest first' });
    await expect(changes.getByRole('listitem').first()).toContainText(/changed by the console \(undo of change \d+\)/);
    await expect(changes).toContainText('Name: Llotja de la Seda → Llotja');
    expect(await consoleOp<PoiReply>(page, 'pois.get', { clientId: info.clientId, poi: poi.id })).toMatchObject({ name: 'Llotja', phone: '+34 2' });
  } finally {
    await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  }
});

test('the Activity panel lists deletes by what and who, and restores a deleted POI with its id', async ({ app: page, info }) => {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 39.4745, lng: -0.3783, name: 'Torres de Serranos', categories: [5], geocode: false } });
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Activity' }).click();
  const panel = page.getByRole('region', { name: 'Activity' });
  await panel.getByLabel('What').selectOption('poi');
  await panel.getByLabel('Who').selectOption('console');
  const entry = panel.getByRole('listitem').filter({ hasText: `POI ${poi.id} “Torres de Serranos” deleted by the console` });
  await entry.getByRole('button', { name: 'Restore' }).click();
  await expect(entry.getByRole('status')).toHaveText('Undone.');
  expect(await consoleOp<PoiReply>(page, 'pois.get', { clientId: info.clientId, poi: poi.id })).toMatchObject({ name: 'Torres de Serranos', uuid: poi.uuid });
  await expect(entry.getByRole('button', { name: 'Restore' })).toBeDisabled();
  // The restore is at the top of the list. Renamed since, it cannot be undone: the refusal shows on its entry.
  await expect(panel.getByRole('listitem').first()).toContainText(`POI ${poi.id} “Torres de Serranos” created by the console (undo of change`);
  const restore = panel.getByRole('listitem').filter({ hasText: `POI ${poi.id} “Torres de Serranos” created by the console (undo of change` });
  await consoleOp(page, 'pois.update', { clientId: info.clientId, fields: { poi: poi.id, name: 'Torres de Serranos (gate)' } });
  await restore.getByRole('button', { name: 'Undo' }).click();
  await expect(restore.getByRole('alert')).toContainText(`POI ${poi.id} "Torres de Serranos (gate)" changed since: name`);
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
});
