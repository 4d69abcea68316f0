/// <reference lib="dom" />
import { E2E_TOKEN } from './info.js';
import { consoleOp, expect, test } from './fixtures.js';
import { startRecordingServer, type RecordingServer } from './recording-server.js';

/**
 * A page of another local program (another port of 127.0.0.1): it loads an image and fetches from
 * its own server, then tries, many times at once, to get the console to create a client
 * application: JSON and no-cors fetches with credentials, and a form posted into a frame.
 */
const attackPage = (consoleOrigin: string): string => `<!doctype html>
<html lang="en"><title>Another local program</title>
<img src="/pixel.png" alt="pixel">
<iframe name="sink" title="sink"></iframe>
<form id="csrf" method="POST" action="${consoleOrigin}/console/api/clients.create" target="sink">
  <input name="name" value="CSRF form">
</form>
<script>
  const op = ${JSON.stringify(`${consoleOrigin}/console/api/clients.create`)};
  const attempts = [fetch('/fetched', { credentials: 'include' }).then((r) => 'own ' + r.status)];
  for (let i = 0; i < 8; i++) {
    attempts.push(fetch(op, { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'CSRF cors ' + i }) })
      .then((r) => 'cors answered ' + r.status, () => 'cors refused'));
    attempts.push(fetch(op, { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=CSRF+no-cors+' + i })
      .then((r) => 'no-cors ' + r.type, () => 'no-cors refused'));
  }
  document.getElementById('csrf').submit();
  window.attack = Promise.all(attempts);
</script></html>`;

let other: RecordingServer;
test.afterEach(async () => {
  await other?.close();
});

test('the console credential reaches no other local server, and another local page cannot run an operation', async ({ app: page, info, context }) => {
  const consoleOrigin = new URL(info.url).origin;
  other = await startRecordingServer({ '/attack': attackPage(consoleOrigin) });

  // A top-level navigation to the other server, typed in a new tab.
  const typed = await context.newPage();
  await typed.goto(`${other.origin}/typed`);

  // The other program's page attacks while the console, in its own tab, creates a client.
  const attacker = await context.newPage();
  await attacker.goto(`${other.origin}/attack`);
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Client applications' }).click();
  const create = page.getByRole('form', { name: 'Create a client application' });
  await create.getByLabel('Name', { exact: true }).fill('Legit console client');
  await create.getByRole('button', { name: 'Create client' }).click();
  const outcomes = (await attacker.evaluate(() => (window as unknown as { attack: Promise<string[]> }).attack)).sort();
  await expect(page.getByTestId('admin-token')).toContainText('Legit console client');
  expect(outcomes).toEqual([...Array<string>(8).fill('cors refused'), ...Array<string>(8).fill('no-cors opaque'), 'own 200']);

  // Navigations started by the console page itself: a window it opens, and leaving it.
  const [popup] = await Promise.all([context.waitForEvent('page'), page.evaluate((o) => void window.open(`${o}/popup`), other.origin)]);
  await popup.waitForLoadState();
  await page.evaluate((o) => location.assign(`${o}/from-console`), other.origin);
  await page.waitForURL(`${other.origin}/from-console`);

  const seen = other.requests.map((r) => r.url.split('?')[0]);
  expect(seen).toEqual(expect.arrayContaining(['/typed', '/attack', '/pixel.png', '/fetched', '/popup', '/from-console']));
  const leaks = other.requests.flatMap((r) =>
    [`${r.method} ${r.url}`, ...r.headers.map(([name, value]) => `${name}: ${value}`)]
      .filter((line) => line.includes(E2E_TOKEN) || /poi_console/i.test(line))
      .map((line) => `${r.url} -> ${line}`),
  );
  expect(leaks).toEqual([]);

  // Nothing the other page sent was executed; the console's own request was.
  const names = (await consoleOp<Array<{ name: string }>>(page, 'clients.list', {})).map((c) => c.name);
  expect(names).toContain('Legit console client');
  expect(names.filter((n) => n.startsWith('CSRF'))).toEqual([]);

  // Back on the console, it still works (its credential stayed in the tab, not in the address).
  await page.goBack();
  await expect(page.getByRole('navigation', { name: 'Panels' })).toBeVisible();
  await expect(page.getByLabel('Client application', { exact: true }).getByRole('option', { name: 'Legit console client' })).toBeAttached();
  expect(page.url()).not.toContain(E2E_TOKEN);
});
