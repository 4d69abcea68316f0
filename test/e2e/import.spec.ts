/// <reference lib="dom" />
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PoiReply } from '../../shared/wire.js';
import { answerConfirm, consoleOp, expect, test } from './fixtures.js';

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
  // A check speaks in the conditional: it wrote nothing.
  await expect(report).toContainText('Checked, nothing written: 2 would be added, 0 would be updated, 1 would be refused, of 3 rows.');
  await expect(section.locator('summary', { hasText: 'Full report' })).toHaveText('Full report: every row that would be refused');
  expect(await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Imported' } })).toEqual([]);

  await section.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(report).toContainText('2 added, 0 updated, 1 refused, of 3 rows');
  await expect(section.getByRole('list', { name: 'Why rows were refused' })).toHaveText('line 3: Latitude must be between -90 and 90, not 123');
  await expect(section.locator('summary', { hasText: 'Full report' }).first()).toHaveText('Full report: every refused row');
  const imported = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Imported' } });
  expect(imported.map((p) => p.name).sort()).toEqual(['Imported fountain', 'Imported kiosk']);
  // The search list shows them at once (its data was refreshed).
  await page.getByLabel('Search (name and description)').fill('Imported');
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page.getByRole('list', { name: 'Search results' })).toContainText('Imported kiosk');
  // Undone whole (which also leaves this server's shared data as the other specs expect it).
  await section.getByRole('button', { name: 'Undo this import' }).click();
  // Asked first: declined, nothing is undone.
  await answerConfirm(page, 'Keep it', 'Undo the whole import?');
  expect((await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Imported' } })).length).toBeGreaterThan(0);
  await section.getByRole('button', { name: 'Undo this import' }).click();
  await answerConfirm(page, 'Undo the import');
  await expect(section.getByText('Import undone: 2 changes reversed.')).toBeVisible();
  expect(await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Imported' } })).toEqual([]);
});

test('the whole report: causes told once, every refused row page by page and as a CSV, a default category, and the import id', async ({ app: page, info }) => {
  const file = join(mkdtempSync(join(tmpdir(), 'poi-e2e-import-')), 'trucks.csv');
  const rows = ['name,lat,lng,category_names'];
  for (let i = 0; i < 55; i++) rows.push(`Truck ${i},40.41${String(i).padStart(2, '0')},-3.70,Food truck`);
  for (let i = 0; i < 5; i++) rows.push(`=Far ${i},95,-3.70,Restaurant`);
  for (let i = 0; i < 3; i++) rows.push(`Bare ${i},40.42${i},-3.71,`);
  writeFileSync(file, `${rows.join('\n')}\n`);
  const section = page.getByRole('region', { name: 'Import POIs' });
  const chooser = page.waitForEvent('filechooser');
  await section.getByRole('button', { name: 'Choose a CSV or GeoJSON file…' }).click();
  await (await chooser).setFiles(file);
  // Rows that name no category go into the one chosen here (before: refused one by one).
  await section.getByLabel('Category for rows that name none (optional)').selectOption('Restaurant');
  await section.getByRole('button', { name: 'Import', exact: true }).click();
  await expect(section.getByRole('status').filter({ hasText: 'rows' }).first()).toContainText('3 added, 0 updated, 60 refused, of 63 rows.');
  // Each cause once, with its count (before: 20 rows one by one, then "and 40 more").
  await expect(section.getByRole('list', { name: 'Why rows were refused' }).getByRole('listitem')).toHaveText([
    '55 rows name the category “Food truck”, which does not exist: create it, or import with Create missing categories',
    '5 rows have a Latitude out of range: it must be between -90 and 90',
  ]);
  // Every refused row, a page at a time.
  await section.getByText('Full report: every refused row (60)').click();
  const table = section.getByRole('table', { name: /^Refused rows/ });
  await expect(table.locator('caption')).toHaveText('Refused rows 1–50 of 60');
  await expect(table.getByRole('row').nth(1)).toHaveText(['line 2', 'Truck 0', 'The category “Food truck” does not exist: create it, or import with Create missing categories'].join(''));
  await section.getByRole('button', { name: 'Next rows' }).click();
  await expect(table.locator('caption')).toHaveText('Refused rows 51–60 of 60');
  await expect(table.getByRole('row').last()).toHaveText(['line 61', '=Far 4', 'Latitude must be between -90 and 90, not 95'].join(''));
  // The same as a CSV for a spreadsheet: line, name, reason.
  const download = page.waitForEvent('download');
  await section.getByRole('button', { name: 'Download the report (CSV)' }).click();
  const saved = await (await download).path();
  const csv = readFileSync(saved, 'utf8').split('\r\n');
  expect(csv[0]).toBe('\uFEFFRow,Name,Reason');
  expect(csv).toHaveLength(62);
  // Through the formula guard, as exports are: the name is shown, never run.
  expect(csv[60]).toBe(`line 61,'=Far 4,"Latitude must be between -90 and 90, not 95"`);
  // The import's id, to undo it from the command line.
  const [job] = await consoleOp<Array<{ id: string; label: string }>>(page, 'jobs.list', { clientId: info.clientId });
  expect(job!.label).toBe('trucks.csv');
  await expect(section.locator('.import-id code').first()).toHaveText(job!.id);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await section.getByRole('button', { name: 'Copy the import id' }).click();
  await expect(section.getByText('Copied')).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(job!.id);
  const bare = await consoleOp<PoiReply[]>(page, 'pois.search', { clientId: info.clientId, filter: { q: 'Bare' } });
  expect(bare.map((p) => [p.name, p.categories.map((c) => c.Description)])).toEqual([0, 1, 2].map((i) => [`Bare ${i}`, ['Restaurant']]));
  await section.getByRole('button', { name: 'Undo this import' }).click();
  await answerConfirm(page, 'Undo the import');
  await expect(section.getByText('Import undone: 3 changes reversed.')).toBeVisible();
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
