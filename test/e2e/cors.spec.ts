import { createServer, type Server } from 'node:http';
import { freePort } from '../support/free-port.js';
import { expect, test } from './fixtures.js';

/**
 * CORS for browser clients (docs/devices.md#cors): a web page of another origin, served by a
 * tiny server of this test, calls the listener from Chromium. It reads the API only while its
 * origin is listed in the Listener panel.
 */
/** A page that reads the API (a simple GET) and writes to it (a JSON POST, preflighted), and shows what it saw. */
function pageServer(apiPort: number, token: string): Promise<{ server: Server; origin: string }> {
  const script = `
    const api = 'http://127.0.0.1:${apiPort}/1/';
    const say = (id, text) => { document.getElementById(id).textContent = text; };
    fetch(api + 'pois/categories.json?oauth_token=${token}').then((r) => say('read', 'status ' + r.status), () => say('read', 'blocked'));
    fetch(api + 'pois/categories/add.json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ oauth_token: '${token}', desc: 'From ' + location.port }) })
      .then((r) => say('write', 'status ' + r.status), () => say('write', 'blocked'));`;
  const html = `<!doctype html><title>Another origin</title><p id="read">waiting</p><p id="write">waiting</p><script>${script}</script>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

test('a page of a listed origin reads and writes the API from Chromium; another origin is kept out', async ({ app: page, info, context }) => {
  test.setTimeout(60_000);
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Listener' }).click();
  const form = page.getByRole('form', { name: 'Change the listener' });
  const apiPort = await freePort();
  const listed = await pageServer(apiPort, info.adminToken);
  const other = await pageServer(apiPort, info.adminToken);
  try {
    await form.getByLabel('Listener on', { exact: true }).check();
    await form.getByLabel('Port', { exact: true }).fill(String(apiPort));
    await form.getByLabel('This computer only', { exact: true }).check();
    // By keyboard: a malformed origin is refused in words, Enter adds a good one (without submitting).
    const origin = form.getByLabel('Origin to allow');
    await origin.fill(`${listed.origin}/app`);
    await origin.press('Enter');
    await expect(form.getByRole('alert')).toContainText('must be an origin such as http://localhost:5173');
    await origin.fill(listed.origin);
    await origin.press('Enter');
    const origins = form.getByRole('list', { name: 'Allowed origins' });
    await expect(origins.getByRole('listitem')).toHaveText([`${listed.origin}Remove`]);
    await expect(form.getByText('Applied.')).toHaveCount(0);
    // Any origin: allowed, with the warning; removed again by its own button.
    await origin.fill('*');
    await form.getByRole('button', { name: 'Add origin' }).click();
    await expect(form.getByRole('note')).toContainText('every web page');
    await form.getByRole('button', { name: 'Remove any origin (*)' }).click();
    await expect(form.getByRole('note')).toHaveCount(0);
    await form.getByRole('button', { name: 'Apply' }).click();
    await expect(form.getByText('Applied.')).toBeVisible();
    await expect(page.getByRole('complementary', { name: 'Side panel' }).getByText(`CORS: web pages of ${listed.origin} may call the API.`)).toBeVisible();

    const visit = async (url: string): Promise<[string, string]> => {
      const tab = await context.newPage();
      await tab.goto(url);
      await expect(tab.locator('#read')).not.toHaveText('waiting');
      await expect(tab.locator('#write')).not.toHaveText('waiting');
      const seen: [string, string] = [await tab.locator('#read').innerText(), await tab.locator('#write').innerText()];
      await tab.close();
      return seen;
    };
    expect(await visit(listed.origin)).toEqual(['status 200', 'status 200']);
    expect(await visit(other.origin)).toEqual(['blocked', 'blocked']);

    // Removed and applied: the listed page is kept out too, without a restart.
    await form.getByRole('button', { name: `Remove ${listed.origin}` }).click();
    await form.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByRole('complementary', { name: 'Side panel' }).getByText(/CORS: web pages/)).toHaveCount(0);
    expect(await visit(listed.origin)).toEqual(['blocked', 'blocked']);

    // 390 px wide: the list and its controls fit, nothing scrolls sideways.
    await form.getByLabel('Origin to allow').fill(listed.origin);
    await form.getByRole('button', { name: 'Add origin' }).click();
    await page.setViewportSize({ width: 390, height: 800 });
    await form.getByRole('button', { name: `Remove ${listed.origin}` }).scrollIntoViewIfNeeded();
    await expect(form.getByRole('button', { name: `Remove ${listed.origin}` })).toBeInViewport();
    await expect(form.getByRole('button', { name: 'Add origin' })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  } finally {
    await form.getByLabel('Listener on', { exact: true }).uncheck().catch(() => undefined);
    await form.getByRole('button', { name: 'Apply' }).click().catch(() => undefined);
    listed.server.close();
    other.server.close();
  }
});
