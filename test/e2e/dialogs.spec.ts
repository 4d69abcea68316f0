/// <reference lib="dom" />
import type { UserReply } from '../../shared/wire.js';
import { consoleOp, expect, test, type Page } from './fixtures.js';

async function register(page: Page, clientId: string, username: string): Promise<UserReply> {
  return consoleOp<UserReply>(page, 'members.register', { clientId, fields: { username, pwd: 'secret77', email: `${username}@example.com` } });
}

const memberNames = async (page: Page, clientId: string): Promise<string[]> =>
  (await consoleOp<UserReply[]>(page, 'members.list', { clientId, page: {} })).map((m) => m.name);

test('deleting a member asks first: focus in the question on Keep, Escape keeps the member and gives focus back, Delete member deletes', async ({ app: page, info }) => {
  await register(page, info.clientId, 'dialogkeeper1');
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Members' }).click();
  const opener = page.getByRole('list', { name: 'Members' }).getByRole('button', { name: 'Delete member dialogkeeper1' });
  await opener.focus();
  await page.keyboard.press('Enter');

  const question = page.getByRole('alertdialog', { name: 'Delete a member' });
  await expect(question).toBeVisible();
  await expect(question).toContainText('Delete member dialogkeeper1? Their tokens stop working at once.');
  // Destructive: the safe choice has focus, so Enter alone deletes nothing.
  await expect(question.getByRole('button', { name: 'Keep' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  await expect(opener).toBeFocused();
  expect(await memberNames(page, info.clientId)).toContain('dialogkeeper1');
  // Keep answers no as Escape does.
  await page.keyboard.press('Enter');
  await question.getByRole('button', { name: 'Keep' }).click();
  await expect(question).toHaveCount(0);
  await expect(opener).toBeFocused();
  expect(await memberNames(page, info.clientId)).toContain('dialogkeeper1');

  await page.keyboard.press('Enter');
  await question.getByRole('button', { name: 'Delete member' }).click();
  await expect(opener).toHaveCount(0);
  expect(await memberNames(page, info.clientId)).not.toContain('dialogkeeper1');
  // The opener went with the member: focus is on the side panel, not lost at the page's top.
  await expect(page.locator('#side-panel')).toBeFocused();
});

test.describe('on a touch screen', () => {
  test.use({ hasTouch: true, viewport: { width: 390, height: 800 } });

  test('the confirmation’s buttons are at least 44 px tall', async ({ app: page, info }) => {
    expect(await page.evaluate(() => matchMedia('(pointer: coarse)').matches)).toBe(true);
    await register(page, info.clientId, 'dialogtouch1');
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Members' }).click();
    await page.getByRole('list', { name: 'Members' }).getByRole('button', { name: 'Delete member dialogtouch1' }).click();
    const question = page.getByRole('alertdialog', { name: 'Delete a member' });
    for (const button of await question.getByRole('button').all()) expect((await button.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await question.getByRole('button', { name: 'Delete member' }).click();
    await expect(question).toHaveCount(0);
    expect(await memberNames(page, info.clientId)).not.toContain('dialogtouch1');
  });
});
