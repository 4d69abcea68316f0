import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { AxeBuilder } from '@axe-core/playwright';
import { freePort } from '../support/free-port.js';
import { answerConfirm, consoleOp, expect, test, type Page } from './fixtures.js';

/**
 * The request inspector (docs/devices.md#request-inspector): a device's request appears in the
 * Requests panel within a second, with its body and its secrets masked; its curl command, run by
 * curl, and its Replay get the same answer.
 */
const run = promisify(execFile);

const form = (fields: Record<string, string>): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields).toString(),
});

const violations = async (page: Page): Promise<string[]> =>
  (await new AxeBuilder({ page }).include('aside').analyze()).violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`);

test('a device request shows up within a second, masked; curl and Replay get the same answer', async ({ app: page, info, context }) => {
  const port = await freePort();
  await consoleOp(page, 'listener.configure', { enabled: true, port, scope: 'local' });
  const base = `http://127.0.0.1:${port}`;
  const password = 'horse-battery-77';
  let member: string | undefined;
  let poi: number | undefined;
  try {
    const registered = await fetch(`${base}/1/users.json`, form({ access_token: info.adminToken, username: 'inspected', pwd: password, email: 'inspected@example.org' }));
    expect(registered.status).toBe(200);
    member = ((await registered.json()) as { id: string }).id;

    await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Requests' }).click();
    const panel = page.getByRole('region', { name: 'Requests' });
    await expect(panel.getByRole('list', { name: 'Requests' }).getByRole('button').first()).toBeVisible();

    // The device logs in; its request is listed within a second of its answer.
    const login = await fetch(`${base}/1/users/login.json`, form({ api_key: info.clientId, username: 'inspected', pwd: password }));
    expect(login.status).toBe(200);
    const answered = Date.now();
    const row = panel.getByRole('button', { name: /^Open POST \/1\/users\/login\.json, 200/ });
    await expect(row).toBeVisible({ timeout: 1000 });
    expect(Date.now() - answered).toBeLessThan(1000);

    await row.click();
    const detail = page.getByRole('region', { name: /^Request #\d+$/ });
    await expect(detail.getByRole('heading', { level: 2 })).toBeFocused();
    await expect(detail.getByLabel('Request body')).toHaveText(/pwd=\*\*\*/);
    await expect(detail.getByLabel('Request body')).toContainText('api_key=***');
    await expect(detail.getByLabel('Request body')).toContainText('username=inspected');
    await expect(detail.getByLabel('Reply body')).toContainText('"access_token":"***"');
    const shown = await page.locator('aside').innerText();
    expect(shown).not.toContain(password);
    expect(shown).not.toContain(info.clientId);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await violations(page), `at ${width} px`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await detail.getByRole('button', { name: 'Back to the requests' }).click();
    await expect(row).toBeFocused();

    // A request whose answer does not change: the member, shown with the administrator's token in the body.
    const show = await fetch(`${base}/1/users/${member}/show.json`, form({ access_token: info.adminToken }));
    const showBody = await show.text();
    expect(show.status).toBe(200);
    const showRow = panel.getByRole('button', { name: new RegExp(`^Open POST /1/users/${member}/show\\.json, 200`) });
    await expect(showRow).toBeVisible({ timeout: 1000 });
    await showRow.click();

    // Copy as curl: without secrets first, then with them; run by curl, it is answered the same.
    const command = detail.getByTestId('curl-command');
    await expect(command).toContainText('access_token=***');
    expect(await command.innerText()).not.toContain(info.adminToken);
    await detail.getByLabel('Include secrets').check();
    await expect(command).toContainText(info.adminToken);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await detail.getByRole('button', { name: 'Copy as curl' }).click();
    await expect(detail.getByText('Copied')).toBeVisible();
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    expect(copied).toBe(await command.innerText());
    const curl = await run('sh', ['-c', `${copied} -w '\\n%{http_code}'`], { timeout: 10_000 });
    const lines = curl.stdout.split('\n');
    expect(lines.pop()).toBe('200');
    expect(lines.join('\n')).toBe(showBody);

    // Replay: the same status and body, and the replay is listed, marked as one.
    await detail.getByRole('button', { name: 'Replay' }).click();
    await expect(detail.getByRole('status').filter({ hasText: 'Replayed' })).toHaveText(/^Replayed: 200 \(request #\d+\)$/);
    // Both masked alike: the reply's client_id is the api_key.
    expect(JSON.parse(await detail.getByLabel("Replay's reply").innerText())).toEqual(JSON.parse(await detail.getByLabel('Reply body').innerText()));
    expect(await detail.getByLabel('Reply body').innerText()).toContain('"name":"inspected"');
    await detail.getByRole('button', { name: 'Back to the requests' }).click();
    await expect(panel.getByRole('button', { name: new RegExp(`^Open POST /1/users/${member}/show\\.json, 200`) })).toHaveCount(3);
    await expect(panel.getByText(/replay of #\d+/)).toHaveCount(1);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 800 });
      expect(await violations(page), `at ${width} px`).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });

    // A request that writes asks before it is sent again; Do not replay sends nothing.
    const added = await fetch(`${base}/1/pois/add.json`, form({ access_token: info.adminToken, lat: '40.41', lng: '-3.7', name: 'Replayed once', categories: '7' }));
    expect(added.status).toBe(200);
    poi = ((await added.json()) as { id: number }).id;
    const addRow = panel.getByRole('button', { name: /^Open POST \/1\/pois\/add\.json, 200/ });
    await expect(addRow).toBeVisible({ timeout: 1000 });
    await addRow.click();
    const replayAdd = detail.getByRole('button', { name: 'Replay' });
    await replayAdd.click();
    await answerConfirm(page, 'Do not replay', 'It writes again what it wrote');
    await expect(replayAdd).toBeFocused();
    await detail.getByRole('button', { name: 'Back to the requests' }).click();
    await expect(panel.getByRole('button', { name: /^Open POST \/1\/pois\/add\.json, 200/ })).toHaveCount(1);
  } finally {
    // The e2e server's data is shared by the specs after this one (sync.spec.ts lists the members).
    if (member !== undefined) await consoleOp(page, 'members.delete', { clientId: info.clientId, memberId: member }).catch(() => undefined);
    if (poi !== undefined) await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi }).catch(() => undefined);
    await consoleOp(page, 'listener.configure', { enabled: false, port, scope: 'local' });
  }
});
