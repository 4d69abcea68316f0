/// <reference lib="dom" />
import { AxeBuilder } from '@axe-core/playwright';
import type { UserReply } from '../../shared/wire.js';
import { consoleOp, expect, test, type Page } from './fixtures.js';
import { E2E_TOKEN } from './info.js';

/** Sizes every dialog is checked at: a desktop window and a phone. */
const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 800 },
];

async function noViolations(page: Page, selector: string): Promise<void> {
  const axe = await new AxeBuilder({ page }).include(selector).analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
}

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

test('the confirmation, the console token dialog and the Map layers popover have no accessibility violations, on a desktop and a phone', async ({ app: page, info }) => {
  await register(page, info.clientId, 'dialogaxe1');
  for (const size of SIZES) {
    await page.setViewportSize(size);
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Members' }).click();
    await page.getByRole('list', { name: 'Members' }).getByRole('button', { name: 'Delete member dialogaxe1' }).click();
    const question = page.getByRole('alertdialog', { name: 'Delete a member' });
    await expect(question).toBeVisible();
    // Readable at a phone's width: inside the screen, both buttons whole.
    const box = (await question.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(size.width);
    for (const button of await question.getByRole('button').all()) await expect(button).toBeInViewport({ ratio: 1 });
    await noViolations(page, '[role="alertdialog"]');
    await page.keyboard.press('Escape');
    await expect(question).toHaveCount(0);

    const toggle = page.getByRole('button', { name: 'Map layers' });
    await toggle.click();
    await expect(page.getByRole('region', { name: 'Map layers' })).toBeVisible();
    await noViolations(page, '.map-layers');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('region', { name: 'Map layers' })).toHaveCount(0);
  }
  await consoleOp(page, 'members.delete', { clientId: info.clientId, memberId: (await consoleOp<UserReply[]>(page, 'members.list', { clientId: info.clientId, page: {} })).find((m) => m.name === 'dialogaxe1')!.id });

  for (const size of SIZES) {
    await page.setViewportSize(size);
    // A tab without the console's token.
    await page.evaluate(() => sessionStorage.clear());
    await page.goto('/');
    const dialog = page.getByRole('dialog', { name: 'This console needs its token' });
    await expect(dialog).toBeVisible();
    await noViolations(page, '.token-dialog');
    // Nothing but a token that works closes it: not Escape, not a click beside it.
    await page.keyboard.press('Escape');
    await page.mouse.click(5, size.height - 5);
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel('Console address or token', { exact: true })).toBeFocused();
  }
});

test('a token refused while typing: once a token works, focus is back in the field typed in, with what was typed', async ({ app: page }) => {
  await page.getByRole('button', { name: 'Add a POI at the map centre' }).click();
  const name = page.getByRole('form', { name: 'Add POI' }).getByLabel('Name', { exact: true });
  await expect(name).toBeFocused();
  await page.keyboard.type('Typed when refused');
  // The tab now holds a token the console refuses (as after `console rotate-token`): the next poll opens the dialog.
  await page.evaluate(() => {
    location.hash = '#token=a-token-this-console-never-issued';
  });
  const dialog = page.getByRole('dialog', { name: 'The console no longer accepts this tab’s token' });
  const field = dialog.getByLabel('Console address or token', { exact: true });
  await expect(field).toBeFocused();
  await field.fill(E2E_TOKEN);
  await field.press('Enter');
  await expect(dialog).toHaveCount(0);
  await expect(name).toBeFocused();
  await expect(name).toHaveValue('Typed when refused');
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
