/// <reference lib="dom" />
import { readFileSync } from 'node:fs';
import { consoleOp, expect, test } from './fixtures.js';

test('Export all POIs downloads a CSV and a GeoJSON file of the client\'s POIs', async ({ app: page, info }) => {
  const added = await consoleOp<{ id: number }>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 41.3851, lng: 2.1734, name: '=Exported, "quoted"', categories: [7] } });
  const group = page.getByRole('group', { name: 'Export POIs' });
  const csvDownload = page.waitForEvent('download');
  await group.getByRole('button', { name: 'CSV' }).click();
  const csv = await csvDownload;
  expect(csv.suggestedFilename()).toMatch(/^pois-E2E-Demo-\d{4}-\d{2}-\d{2}\.csv$/);
  // Written by a job, then downloaded: the outcome is said where the buttons are.
  await expect(group.getByRole('status')).toHaveText(new RegExp(`^Exported \\d+ POIs?: your browser saves ${csv.suggestedFilename().replace('.', '\\.')}\\.$`));
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

test('a CSV for a program, chosen with the keyboard, downloads with no byte-order mark and every cell as it is', async ({ app: page, info }) => {
  const added = await consoleOp<{ id: number }>(page, 'pois.add', { clientId: info.clientId, fields: { lat: 41.3852, lng: 2.1735, name: '=Plain, "quoted"', categories: [7] } });
  const group = page.getByRole('group', { name: 'Export POIs' });
  await group.getByRole('button', { name: 'GeoJSON', exact: true }).focus();
  await page.keyboard.press('Tab');
  const choice = group.getByRole('combobox', { name: 'Write the CSV' });
  await expect(choice).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(choice).toHaveValue('plain');
  const download = page.waitForEvent('download');
  await group.getByRole('button', { name: 'CSV', exact: true }).click();
  const text = readFileSync((await (await download).path())!, 'utf8');
  expect(text.startsWith('id,uuid,name,')).toBe(true);
  expect(text).toContain('"=Plain, ""quoted"""');
  expect(text).not.toContain('formula_guard');
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: added.id });
});
