/// <reference lib="dom" />
import type { JobView } from '../../shared/jobs.js';
import { E2E_TOKEN } from './info.js';
import { answerConfirm, consoleOp, expect, test, type Page } from './fixtures.js';

/** Imports `rows` new POIs from a CSV named `name`, as browser mode's upload does, and waits for its job. */
async function importCsv(page: Page, clientId: string, name: string, rows: number): Promise<JobView> {
  const lines = ['name,lat,lng,categories'];
  for (let i = 0; i < rows; i++) lines.push(`Activity ${name} ${i},${(39.46 + i * 0.0002).toFixed(4)},-0.37,5`);
  const r = await page.request.post(`/console/imports?clientId=${clientId}&format=csv&filename=${encodeURIComponent(name)}`, {
    data: `${lines.join('\n')}\n`,
    headers: { authorization: `Bearer ${E2E_TOKEN}`, 'content-type': 'text/csv' },
  });
  const { value: started } = (await r.json()) as { value: JobView };
  await expect.poll(async () => (await consoleOp<JobView>(page, 'jobs.get', { id: started.id })).state).toBe('done');
  return consoleOp<JobView>(page, 'jobs.get', { id: started.id });
}

test('an import is one entry in Activity, its POIs listed on demand in pages, with one Undo that goes once it is undone', async ({ app: page, info }) => {
  const name = `activity-${Date.now()}.csv`;
  await importCsv(page, info.clientId, name, 98);
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Activity' }).click();
  const panel = page.getByRole('region', { name: 'Activity' });
  await expect(panel.getByRole('list', { name: 'Changes, newest first' })).toBeVisible();
  // Before: 50 entries on the first page (98 in all), each "POI … created by an import" with its own "Undo the whole import".
  await expect(panel.getByRole('button', { name: 'Undo the whole import' })).toHaveCount(1);
  const entry = panel.getByRole('listitem').filter({ hasText: `Import of ${name} by the console: 98 POIs added, 0 updated.` });
  await expect(entry).toHaveCount(1);

  // Its POIs, only once asked for, 50 at a time.
  await entry.getByText('Its changes (98)').click();
  const pois = entry.getByRole('list', { name: 'Its changes (98)' }).getByRole('listitem');
  await expect(pois).toHaveCount(50);
  await expect(pois.first()).toContainText(`“Activity ${name} 97” created`);
  await entry.getByRole('button', { name: 'More of its changes (98)' }).click();
  await expect(pois).toHaveCount(98);
  await expect(entry.getByRole('button', { name: /^More of/ })).toHaveCount(0);

  // The one Undo, confirmed first (as before); then the entry says so and has no Undo left.
  await entry.getByRole('button', { name: 'Undo the whole import' }).click();
  await answerConfirm(page, 'Undo the import', 'Undo the whole import?');
  await expect(entry.getByRole('status')).toHaveText('Import undone: 98 changes reversed.');
  await expect(panel.getByRole('button', { name: 'Undo the whole import' })).toHaveCount(0);
  // Its 98 reversals are one entry too, at the top.
  const undoEntry = panel.getByRole('listitem').filter({ hasText: `The import of ${name} undone by the console: 98 changes reversed.` });
  await expect(undoEntry).toHaveCount(1);
  await expect(panel.getByRole('listitem').first()).toContainText(`The import of ${name} undone by the console`);

  // Seen afresh (another visit to the panel), the import says it was undone, without an Undo.
  await page.reload();
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Activity' }).click();
  const again = page.getByRole('region', { name: 'Activity' }).getByRole('listitem').filter({ hasText: `Import of ${name} by the console` });
  await expect(again).toContainText('This import was undone: nothing of it is left to undo.');
  await expect(again.getByRole('button', { name: 'Undo the whole import' })).toHaveCount(0);
});
