/// <reference lib="dom" />
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PoiReply } from '../../shared/wire.js';
import { consoleOp, expect, test } from './fixtures.js';

test('importing a CSV: a preview of the mapping, a check, then the import with its bad row refused by line and reason', async ({ app: page, info }) => {
  const file = join(mkdtempSync(join(tmpdir(), 'poi-e2e-import-')), 'field-survey.csv');
  writeFileSync(file, '\uFEFFName,Latitude,Longitude,Category_Names,Notes\r\nImported fountain,40.4155,-3.7074,Restaurant,keep\r\nOff the globe,123,-3.7,Restaurant,x\r\nImported kiosk,40.4160,-3.7080,Shop,y\r\n');
  const section = page.getByRole('region', { name: 'Import POIs' });
  const chooser = page.waitForEvent('filechooser');
  await section.getByRole('button', { name: 'Choose a CSV or GeoJSON file…' }).click();
  await (await chooser).setFiles(file);
  const preview = section.getByRole('table', { name: 'First rows, and the field each column feeds' });
  await expect(preview.getByRole('columnheader', { name: 'Latitude → lat' })).toBeVisible();
  await expect(preview.getByRole('columnheader', { name: 'Notes → ignored' })).toBeVisible();
  await expect(preview.getByRole('cell', { name: 'Imported fountain' })).toBeVisible();

  await section.getByRole('button', { name: 'Check only' }).click();
  const report = section.getByRole('status').filter({ hasText: 'rows' });
  await expect(report).toContainText('Checked, nothing written: 2 added, 0 updated, 1 refused, of 3 rows');
  expect(await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Imported' } })).toEqual([]);

  await section.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(report).toContainText('2 added, 0 updated, 1 refused, of 3 rows');
  await expect(section.getByRole('list', { name: 'Refused rows' })).toContainText('line 3: lat must be between -90 and 90');
  const imported = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Imported' } });
  expect(imported.map((p) => p.name).sort()).toEqual(['Imported fountain', 'Imported kiosk']);
  // The search list shows them at once (its data was refreshed).
  await page.getByLabel('Search (name and description)').fill('Imported');
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('list', { name: 'Search results' })).toContainText('Imported kiosk');
  // Undone whole (which also leaves this server's shared data as the other specs expect it).
  await section.getByRole('button', { name: 'Undo this import' }).click();
  await expect(section.getByText('Import undone: 2 changes reversed.')).toBeVisible();
  expect(await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Imported' } })).toEqual([]);
});

test('a 100,000-row import shows its progress, and a Cancel at half-way leaves the client as it was', async ({ app: page, info }) => {
  test.setTimeout(180_000);
  const file = join(mkdtempSync(join(tmpdir(), 'poi-e2e-import-')), 'bulk.csv');
  const rows = ['name,lat,lng,category_names'];
  for (let i = 0; i < 100_000; i++) rows.push(`Bulk ${i},${(40.3 + (i % 400) * 0.0005).toFixed(4)},${(-3.8 + Math.floor(i / 400) * 0.0005).toFixed(4)},Restaurant`);
  writeFileSync(file, `${rows.join('\n')}\n`);
  const before = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { total: 1000 } });

  const section = page.getByRole('region', { name: 'Import POIs' });
  const chooser = page.waitForEvent('filechooser');
  await section.getByRole('button', { name: 'Choose a CSV or GeoJSON file…' }).click();
  await (await chooser).setFiles(file);
  await section.getByRole('button', { name: 'Import', exact: true }).click();
  const progress = section.getByRole('progressbar', { name: /^Importing bulk\.csv: [\d,]+ rows read/ });
  await expect(progress).toBeVisible();
  // Half-way by the job's own progress (the share of the file read).
  await expect.poll(() => progress.evaluate((bar: HTMLProgressElement) => bar.value / bar.max), { timeout: 120_000, intervals: [100] }).toBeGreaterThanOrEqual(0.5);
  await section.getByRole('button', { name: 'Cancel' }).click();
  const outcome = section.getByRole('status').filter({ hasText: /^Cancelled after [\d,]+ rows: nothing was changed\.$/ });
  await expect(outcome).toBeVisible({ timeout: 60_000 });
  // The Cancel button had focus and is gone: focus is on what happened, not lost to the page.
  await expect(outcome).toBeFocused();
  expect(await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { total: 1000 } })).toEqual(before);
  expect(await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Bulk' } })).toEqual([]);
  // Kept, with its report, among the earlier imports once another starts or the page comes back.
  await page.reload();
  const earlier = page.getByRole('region', { name: 'Import POIs' }).getByText('Earlier imports and checks', { exact: false });
  await expect(earlier).toBeVisible();
  await earlier.click();
  await expect(page.getByRole('region', { name: 'Import POIs' }).getByText(/^Import of bulk\.csv, .*: cancelled$/)).toBeVisible();
  // And in the Activity panel, beside the changes.
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Activity' }).click();
  const activity = page.getByRole('region', { name: 'Activity' });
  await activity.getByText('Earlier imports and checks', { exact: false }).click();
  await expect(activity.getByText(/^Import of bulk\.csv, .*: cancelled$/)).toBeVisible();
});
