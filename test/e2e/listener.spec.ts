import { createServer } from 'node:net';
import { expect, test } from './fixtures.js';

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

test('turn the listener on for the local network, see its addresses, reach the API; a taken port is refused and the listener kept', async ({ app: page, info }) => {
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Listener' }).click();
  const form = page.getByRole('form', { name: 'Change the listener' });
  const port = await freePort();
  await form.getByLabel('Listener on', { exact: true }).check();
  await form.getByLabel('Port', { exact: true }).fill(String(port));
  await form.getByLabel('Local network', { exact: true }).check();
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('complementary', { name: 'Side panel' }).getByRole('status').first()).toHaveText(/listening/);
  const addresses = page.getByTestId('listener-addresses').getByRole('listitem');
  await expect(addresses.first()).toHaveText(`http://127.0.0.1:${port}/1/`);
  // Every address listed is one this computer answers on (all of them are its own interfaces).
  const listed = await addresses.allTextContents();
  expect(listed.length).toBeGreaterThanOrEqual(1);
  for (const address of listed) {
    const reply = await fetch(`${address.trim()}users.json?access_token=${info.adminToken}`);
    expect(reply.status).toBe(200);
  }

  // A port another program holds: the panel says so next to the port, and the listener that
  // worked keeps listening where it was.
  const blocker = createServer((socket) => socket.resume());
  const taken = await new Promise<number>((resolve) => blocker.listen(0, '0.0.0.0', () => resolve((blocker.address() as { port: number }).port)));
  try {
    await form.getByLabel('Port', { exact: true }).fill(String(taken));
    await form.getByRole('button', { name: 'Apply' }).click();
    // Under the Port field, which names it: "<port> is already in use by …".
    await expect(form.getByRole('alert')).toHaveText(`${taken} is already in use by another program`);
    await expect(form.getByLabel('Port', { exact: true })).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByText('Applied.')).toHaveCount(0);
    await expect(page.getByRole('complementary', { name: 'Side panel' }).getByRole('status').first()).toHaveText(/listening/);
    await expect(addresses.first()).toHaveText(`http://127.0.0.1:${port}/1/`);
    expect((await fetch(`http://127.0.0.1:${port}/1/users.json?access_token=${info.adminToken}`)).status).toBe(200);
  } finally {
    blocker.close();
  }

  // The admin console's own port: the panel names the app itself.
  const consolePort = new URL(info.url).port;
  await form.getByLabel('Port', { exact: true }).fill(consolePort);
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(form.getByRole('alert')).toHaveText(`${consolePort} is already in use by this app's admin console`);
  await expect(page.getByRole('complementary', { name: 'Side panel' }).getByRole('status').first()).toHaveText(/listening/);

  // Off again: nothing answers on the first port any more.
  await form.getByLabel('Listener on', { exact: true }).uncheck();
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('complementary', { name: 'Side panel' }).getByRole('status').first()).toHaveText(/stopped/);
  await expect(fetch(`http://127.0.0.1:${port}/1/users.json`)).rejects.toThrow();
});
