/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { consoleOp, expect, test } from './fixtures.js';

test('Export all POIs downloads a CSV and a GeoJSON file of the client\'s POIs', async ({ app: page, info }) => {
  const added = await consoleOp<{ id: number }>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 41.3851, lng: 2.1734, name: '=Exported, "quoted"', categories: [7] } });
  const group = page.getByRole('group', { name: 'Export POIs' });
  const csvDownload = page.waitForEvent('download');
  await group.getByRole('button', { name: 'CSV' }).click();
  const csv = await csvDownload;
  expect(csv.suggestedFilename()).toMatch(/^pois-\d{4}-\d{2}-\d{2}\.csv$/);
  const text = readFileSync((await csv.path())!, 'utf8');
  expect(text.startsWith('\uFEFFid,uuid,name,')).toBe(true);
  // Shown as typed in a spreadsheet, never run.
  expect(text).toContain(`"'=Exported, ""quoted"""`);

  const geoDownload = page.waitForEvent('download');
  await group.getByRole('button', { name: 'GeoJSON' }).click();
  const geo = JSON.parse(readFileSync((await (await geoDownload).path())!, 'utf8')) as { features: Array<{ properties: { name: string } }> };
  expect(geo.features.map((f) => f.properties.name)).toContain('=Exported, "quoted"');
  // The page stayed where it was.
  await expect(page.getByRole('heading', { name: 'Points of interest' })).toBeVisible();
  // The other specs share this server's data.
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: added.id });
});
