import { chromium } from '@playwright/test';
import { freePort } from '../support/free-port.js';
import { CHROMIUM_ARGS, findChromium } from './find-chromium.js';
import { expect, test } from './fixtures.js';
import { E2E_PORT } from './info.js';

/**
 * DNS rebinding, played by a real Chromium (docs/devices.md#host-names): a page of evil.example
 * whose name the attacker's DNS turns into 127.0.0.1 is same-origin with itself, not with the
 * listener, so CORS does not stop it reading what it fetches. Only the Host header tells: the
 * listener and the admin console answer 421 to it, and run nothing.
 */
test('a page reached as evil.example that resolves to this computer gets 421 from the listener and the console', async ({ app: page, info }) => {
  const found = findChromium(false);
  test.skip('error' in found, 'error' in found ? found.error : '');
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Listener' }).click();
  const form = page.getByRole('form', { name: 'Change the listener' });
  const apiPort = await freePort();
  await form.getByLabel('Listener on', { exact: true }).check();
  await form.getByLabel('Port', { exact: true }).fill(String(apiPort));
  await form.getByLabel('This computer only', { exact: true }).check();
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('listener-addresses').getByRole('listitem').first()).toHaveText(`http://127.0.0.1:${apiPort}/1/`);

  // The attacker's resolver: evil.example is 127.0.0.1 for this browser.
  const browser = await chromium.launch({
    executablePath: 'path' in found ? found.path : undefined,
    args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP evil.example 127.0.0.1'],
  });
  try {
    const attacker = await browser.newPage();
    const read = `/1/pois/categories.json?oauth_token=${info.adminToken}`;
    const write = `/1/pois/categories/add.json?oauth_token=${info.adminToken}&desc=Rebound`;
    // The same browser reaching the listener by its own address is answered: the name is what differs.
    const direct = await attacker.goto(`http://127.0.0.1:${apiPort}${read}`);
    expect(direct?.status()).toBe(200);
    for (const path of [read, write, '/', '/ca.pem']) {
      const rebound = await attacker.goto(`http://evil.example:${apiPort}${path}`);
      expect(rebound?.status(), path).toBe(421);
      expect(JSON.parse(await rebound!.text())).toMatchObject({ code: 421, description: 'EXCEPTION_MISDIRECTED_REQUEST' });
    }
    const console = await attacker.goto(`http://evil.example:${E2E_PORT}/`);
    expect(console?.status()).toBe(421);
  } finally {
    await browser.close();
  }
  // Nothing was run: the write through the rebound name added no category.
  const categories = (await (await fetch(`http://127.0.0.1:${apiPort}/1/pois/categories.json?oauth_token=${info.adminToken}`)).json()) as Array<{ Description: string }>;
  expect(categories.map((c) => c.Description)).not.toContain('Rebound');

  await form.getByLabel('Listener on', { exact: true }).uncheck();
  await form.getByRole('button', { name: 'Apply' }).click();
});
