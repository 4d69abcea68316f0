import { createServer } from 'node:net';
import { httpsGet } from '../tls/listener.js';
import { expect, test } from './fixtures.js';

const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

test('set an HTTPS port, see its https:// address, reach the API over HTTPS with the listener’s certificate; then turn it off', async ({ app: page, info }) => {
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Listener' }).click();
  const form = page.getByRole('form', { name: 'Change the listener' });
  const [port, httpsPort] = [await freePort(), await freePort()];
  await form.getByLabel('Listener on', { exact: true }).check();
  await form.getByLabel('Port', { exact: true }).fill(String(port));
  await form.getByLabel('This computer only', { exact: true }).check();
  // The same port for both is refused under the HTTPS port, and focus goes there from Apply.
  const https = form.getByLabel('HTTPS port', { exact: true });
  await https.fill(String(port));
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(https).toBeFocused();
  await expect(https).toHaveAccessibleDescription(/must differ from the port of plain HTTP/);
  await https.fill(String(httpsPort));
  await form.getByRole('button', { name: 'Apply' }).click();
  const addresses = page.getByTestId('listener-addresses').getByRole('listitem');
  await expect(addresses).toHaveText([`http://127.0.0.1:${port}/1/`, `https://127.0.0.1:${httpsPort}/1/`]);

  // What a phone does: the certificate over plain HTTP from the listener's page, then HTTPS trusting it.
  const page1 = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  // This computer only: the page lists no address, since 127.0.0.1 on a phone is the phone.
  expect(page1).toContain('None a phone can reach');
  expect(page1).toContain('href="/ca.crt"');
  const ca = await (await fetch(`http://127.0.0.1:${port}/ca.pem`)).text();
  expect(await httpsGet(`https://127.0.0.1:${httpsPort}/1/users.json?access_token=${info.adminToken}`, ca)).toMatchObject({ status: 200 });

  await form.getByLabel('HTTPS port', { exact: true }).fill('');
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(addresses).toHaveText([`http://127.0.0.1:${port}/1/`]);
  expect(await httpsGet(`https://127.0.0.1:${httpsPort}/1/`, ca)).toMatchObject({ error: 'ECONNREFUSED' });
});
