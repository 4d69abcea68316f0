import type { BackupsView } from '../../shared/backups.js';
import { answerConfirm, consoleOp, expect, test } from './fixtures.js';

/**
 * Back up, change something, restore, see the old state. The restore goes back to a backup taken
 * in this same test, so the specs after it find the data folder as they would have.
 */
test('back up now, change the data, restore the backup from the list, and the change is gone (at 360 px)', async ({ app: page, info }) => {
  await page.setViewportSize({ width: 360, height: 780 });
  const panels = page.getByRole('navigation', { name: 'Panels' });
  await panels.getByRole('button', { name: 'Backups' }).click();
  const panel = page.getByRole('region', { name: 'Backups' });
  await panel.getByRole('button', { name: 'Back up now' }).click();
  await expect(panel.getByRole('status').filter({ hasText: 'Backup taken' })).toBeVisible();
  const { backups } = await consoleOp<BackupsView>(page, 'backups.list', {});
  const taken = backups.find((b) => b.kind === 'manual')!;
  const when = await page.evaluate((iso) => new Date(iso).toLocaleString(), taken.takenAt);
  const list = panel.getByRole('list', { name: 'Backups' });
  await expect(list.getByRole('listitem').first()).toContainText(when);
  await expect(list.getByRole('listitem').first()).toContainText(/\d+ KB/);

  // The change: a client application and a category of the demo client, made after the backup.
  await consoleOp(page, 'clients.create', { name: 'Made after the backup' });
  await consoleOp(page, 'categories.add', { clientId: info.clientId, desc: 'Category after the backup' });
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Client application' })).toContainText('Made after the backup');

  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Backups' }).click();
  // Named with its kind: the daily backup of a server started this very second has the same time.
  const restore = panel.getByRole('button', { name: `Restore the backup of ${when} (taken by hand)` });
  // Every control fits the 360 px screen.
  const box = await restore.boundingBox();
  expect(box!.x + box!.width).toBeLessThanOrEqual(360);
  await restore.click();
  await answerConfirm(page, 'Restore', 'The current data is backed up first');
  await expect(panel.getByRole('status').filter({ hasText: `Restored the backup of ${when}` })).toBeVisible();
  // The page reads everything again: the client made after the backup is gone, without a reload.
  await expect(page.getByRole('combobox', { name: 'Client application' })).not.toContainText('Made after the backup');
  await expect(list.getByRole('listitem').filter({ hasText: 'before a restore' }).first()).toBeVisible();
  const categories = await consoleOp<Array<{ Description: string }>>(page, 'categories.list', { clientId: info.clientId });
  expect(categories.map((c) => c.Description)).not.toContain('Category after the backup');

  // A refusal shows where the person looks: the keep-N field under its label.
  const daily = page.getByRole('form', { name: 'Daily backups' });
  await daily.getByLabel('Daily backups to keep').fill('-1');
  await daily.getByRole('button', { name: 'Save' }).click();
  await expect(daily.getByText('must be 0 (no daily backups) or more')).toBeVisible();
});
