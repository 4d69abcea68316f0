/// <reference lib="dom" />
import { join } from 'node:path';
import { addWarningInput } from '../../shared/schemas/pois.js';
import type { PoiReply, WarningReply } from '../../shared/wire.js';
import { openCore } from '../support/core.js';
import { answerConfirm, consoleOp, expect, test } from './fixtures.js';

test('the Duplicates panel lists a POI entered twice and merges it, keeping the one chosen with the other\'s report', async ({ app: page, info }) => {
  const add = (name: string, lat: number) => consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat, lng: -0.3763, name, categories: [5], geocode: false } });
  const keep = await add('Mercado de Colón', 39.4699);
  const twin = await add('mercado de colon', 39.46992);
  // A member's report on the twin (written by another process on the same data folder, as the API would).
  const other = openCore({ file: join(info.dataDir, 'poi.sqlite') });
  other.warnings.add(null, addWarningInput.parse({ poi: twin.id, type: 'DUPLICATED' }));
  other.close();
  try {
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Duplicates' }).click();
    const panel = page.getByRole('region', { name: 'Possible duplicates' });
    const pair = panel.getByRole('listitem').filter({ hasText: 'Mercado de Colón and mercado de colon, 2 m apart' });
    await pair.getByRole('button', { name: /^Merge “Mercado de Colón” and “mercado de colon”/ }).click();
    await pair.getByRole('radio', { name: `Keep “Mercado de Colón” (POI ${keep.id})` }).check();
    await pair.getByRole('button', { name: 'Merge', exact: true }).click();
    await answerConfirm(page, 'Merge', 'Keep “Mercado de Colón” and delete “mercado de colon”?');
    // The kept POI opens, with the other's report.
    await expect(page.getByRole('heading', { name: 'Mercado de Colón' })).toBeVisible();
    const reports = await consoleOp<WarningReply[]>(page, 'warnings.open', { clientId: info.clientId });
    expect(reports.filter((w) => w.poi_id === keep.id).map((w) => w.type)).toEqual(['DUPLICATED']);
    await expect(consoleOp(page, 'pois.get', { clientId: info.clientId, poi: twin.id })).rejects.toThrow(/NOT_FOUND/);
  } finally {
    await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: keep.id });
    await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: twin.id }).catch(() => undefined);
  }
});

test('a CLOSED report offers to delete its POI, confirmed, and the report goes with it', async ({ app: page, info }) => {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 39.475, lng: -0.37, name: 'Quiosco cerrado', categories: [5], geocode: false } });
  const other = openCore({ file: join(info.dataDir, 'poi.sqlite') });
  other.warnings.add(null, addWarningInput.parse({ poi: poi.id, type: 'CLOSED' }));
  other.close();
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Reports' }).click();
  const report = page.getByRole('list', { name: 'Open reports, oldest first' }).getByRole('listitem').filter({ hasText: 'Quiosco cerrado' });
  await report.getByRole('button', { name: 'Delete the POI' }).click();
  await answerConfirm(page, 'Delete POI', 'Its reports close with it');
  await expect(report).toHaveCount(0);
  await expect(consoleOp(page, 'pois.get', { clientId: info.clientId, poi: poi.id })).rejects.toThrow(/NOT_FOUND/);
});
