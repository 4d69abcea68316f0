/// <reference lib="dom" />
import { X509Certificate } from 'node:crypto';
import { AxeBuilder } from '@axe-core/playwright';
import { freePort } from '../support/free-port.js';
import { answerConfirm, expect, screenshotPath, test, type Page } from './fixtures.js';

/**
 * The Listener panel for a developer with a phone (docs/connect-a-phone.md): the page's address
 * on each address as a QR code and as text to copy, the selected client's api_key and category
 * ids, fault rules added and removed from the panel, and all of it by keyboard and at 390 px.
 */
test.describe.configure({ mode: 'serial' });

const LOOPBACK = /^https?:\/\/(127\.0\.0\.1|\[::1\]|localhost)[:/]/;

/** Opens the Listener panel and turns the listener on at a free port for the local network; its HTTP port. */
async function listenOnLan(page: Page): Promise<number> {
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Listener' }).click();
  const form = page.getByRole('form', { name: 'Change the listener' });
  const port = await freePort();
  await form.getByLabel('Listener on', { exact: true }).check();
  await form.getByLabel('Port', { exact: true }).fill(String(port));
  await form.getByLabel('Local network', { exact: true }).check();
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('listener-addresses').getByRole('listitem').first()).toHaveText(`http://127.0.0.1:${port}/1/`);
  return port;
}

/** Turns the listener off again, so that the next test starts from the settings it expects. */
async function switchOff(page: Page): Promise<void> {
  const form = page.getByRole('form', { name: 'Change the listener' });
  await form.getByLabel('Listener on', { exact: true }).uncheck();
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('complementary', { name: 'Side panel' }).getByRole('status').first()).toHaveText(/stopped/);
}

test('a QR code and a Copy for the page on each address; the api_key masked, shown and copied; the category ids copied', async ({ app: page, info, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.setViewportSize({ width: 390, height: 800 });
  const port = await listenOnLan(page);
  const pages = page.getByRole('list', { name: 'Pages for a phone' }).getByRole('listitem');
  const addresses = await page.getByTestId('listener-addresses').getByRole('listitem').allTextContents();
  const http = addresses.filter((a) => a.startsWith('http:'));
  const lan = http.filter((a) => !LOOPBACK.test(a));
  test.skip(lan.length === 0, 'this machine has no local network address to show a QR code for');
  await expect(pages).toHaveCount(http.length);
  // One QR code per address a phone can reach, naming the page's URL; each URL is the listener's page.
  const codes = page.getByRole('img', { name: /^QR code of http:\/\// });
  await expect(codes).toHaveCount(lan.length);
  for (const [i, address] of lan.entries()) {
    const url = new URL('/', address).href;
    await expect(codes.nth(i)).toHaveAccessibleName(`QR code of ${url}`);
    const reply = await fetch(url);
    expect(reply.status).toBe(200);
    expect(await reply.text()).toContain('Connect a phone to the POI API');
  }
  // The pictures of docs/connect-a-phone.md: the side panel tall enough to hold each part whole.
  await page.setViewportSize({ width: 1280, height: 2000 });
  await page.locator('.panel-block', { has: page.getByTestId('listener-addresses') }).screenshot({ path: screenshotPath('listener-phone-pages') });
  await page.locator('.app-keys').screenshot({ path: screenshotPath('listener-app-keys') });
  await page.setViewportSize({ width: 390, height: 800 });

  const first = pages.first();
  await first.getByRole('button', { name: 'Copy address' }).click();
  await expect(first.getByRole('status')).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`http://127.0.0.1:${port}/`);

  // The api_key of the client the map shows: hidden until asked for, copied whole either way.
  const keys = page.locator('.app-keys');
  await expect(keys).not.toContainText(info.clientId);
  await keys.getByRole('button', { name: 'Copy api_key' }).click();
  await expect(keys.getByRole('status').first()).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(info.clientId);
  await keys.getByRole('button', { name: 'Show api_key' }).click();
  await expect(keys).toContainText(info.clientId);
  await expect(keys.getByRole('button', { name: 'Hide api_key' })).toBeFocused();
  await keys.getByRole('button', { name: 'Copy category ids' }).click();
  const ids = await page.evaluate(() => navigator.clipboard.readText());
  expect(ids.split('\n')[0]).toBe('1 Restaurant');

  // A clipboard the page may not use: said, with what to do instead.
  await page.evaluate(() => {
    navigator.clipboard.writeText = () => Promise.reject(new DOMException('refused', 'NotAllowedError'));
  });
  await keys.getByRole('button', { name: 'Copy api_key' }).click();
  await expect(keys.getByRole('status').first()).toHaveText('Could not copy: select the text and copy it by hand');
  await switchOff(page);
});

test('fault rules added in the panel fail and delay about the share asked of the next requests; removed, none', async ({ app: page, info }) => {
  const port = await listenOnLan(page);
  const form = page.getByRole('form', { name: 'Change the listener' });
  const faults = form.getByRole('group', { name: 'Faults on purpose' });
  const heading = page.getByRole('heading', { name: /^Listener/ });
  await expect(heading).toHaveText('Listener');

  // A bad rule is refused in plain words, under the fields, and not added.
  await faults.getByLabel('What it does').selectOption({ label: 'Slow down' });
  await faults.getByLabel('Delay (ms)').fill('800');
  await faults.getByLabel('Up to (ms, optional)').fill('200');
  await faults.getByRole('button', { name: 'Add fault rule' }).click();
  await expect(faults.getByRole('alert')).toHaveText('The rule *:latency=800-200ms has a latency range whose end is below its start: change it and add it again.');
  await expect(faults.getByLabel('Up to (ms, optional)')).toHaveAttribute('aria-invalid', 'true');
  await expect(faults.getByRole('list', { name: 'Fault rules' })).toHaveCount(0);

  const rule = 'pois/categories:status=503@50%';
  await faults.getByLabel('Operation').selectOption('pois/categories');
  await faults.getByLabel('What it does').selectOption({ label: 'Fail with a status' });
  await faults.getByLabel('Status', { exact: true }).selectOption('503');
  await faults.getByLabel('Share of requests (%)').fill('50');
  await faults.getByRole('button', { name: 'Add fault rule' }).click();
  await expect(faults.getByRole('alert')).toHaveCount(0);
  await expect(faults.getByRole('list', { name: 'Fault rules' }).getByRole('listitem')).toHaveText([`${rule}Remove`]);
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(form.getByText('Applied.')).toBeVisible();
  await expect(heading).toHaveText('Listener Faults on');
  await expect(page.getByTestId('listener-faults').getByRole('listitem')).toHaveText([rule]);

  const url = `http://127.0.0.1:${port}/1/pois/categories.json?oauth_token=${info.adminToken}`;
  const failedShare = async (): Promise<number> => {
    let failed = 0;
    for (let i = 0; i < 200; i++) {
      const r = await fetch(url);
      await r.arrayBuffer();
      if (r.status === 503) {
        failed++;
        expect(r.headers.get('x-fault-injected')).toBe(rule);
      } else {
        expect([r.status, r.headers.get('x-fault-injected')]).toEqual([200, null]);
      }
    }
    return failed / 200;
  };
  const share = await failedShare();
  // 50 % of 200: 35 % to 65 % is more than four standard deviations either side.
  expect(share).toBeGreaterThanOrEqual(0.35);
  expect(share).toBeLessThanOrEqual(0.65);

  await faults.getByRole('button', { name: `Remove the fault rule ${rule}` }).click();
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(heading).toHaveText('Listener');
  expect(await failedShare()).toBe(0);

  // A delay for a quarter of the requests: each it touches says so and took at least its least.
  const slow = 'pois/categories:latency=100-150ms@25%';
  await faults.getByLabel('Operation').selectOption('pois/categories');
  await faults.getByLabel('What it does').selectOption({ label: 'Slow down' });
  await faults.getByLabel('Delay (ms)').fill('100');
  await faults.getByLabel('Up to (ms, optional)').fill('150');
  await faults.getByLabel('Share of requests (%)').fill('25');
  await faults.getByRole('button', { name: 'Add fault rule' }).click();
  await form.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByTestId('listener-faults').getByRole('listitem')).toHaveText([slow]);
  let delayed = 0;
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    const r = await fetch(url);
    await r.arrayBuffer();
    expect(r.status).toBe(200);
    if (r.headers.get('x-fault-injected') === slow) {
      delayed++;
      expect(performance.now() - started).toBeGreaterThanOrEqual(100);
    } else {
      expect(r.headers.get('x-fault-injected')).toBeNull();
    }
  }
  // 25 % of 200: 13 % to 37 % is four standard deviations either side.
  expect(delayed / 200, `${delayed} of 200 delayed`).toBeGreaterThanOrEqual(0.13);
  expect(delayed / 200, `${delayed} of 200 delayed`).toBeLessThanOrEqual(0.37);
  await faults.getByRole('button', { name: `Remove the fault rule ${slow}` }).click();
  await form.getByRole('button', { name: 'Apply' }).click();
  await switchOff(page);
});

/** The panel's controls that Tab does not reach, and those whose label is not drawn, from its first control on. */
async function keyboardGaps(page: Page): Promise<{ controls: number; unreached: string[]; unlabelled: string[] }> {
  const panel = page.getByRole('complementary', { name: 'Side panel' });
  const all = await panel.evaluate((root) => {
    const controls = Array.from(root.querySelectorAll<HTMLElement>('a[href], button, input, select, textarea')).filter((el) => el.checkVisibility());
    controls.forEach((el, i) => el.setAttribute('data-tab-audit', String(i)));
    const drawn = (el: Element | null | undefined): boolean => !!el && el instanceof HTMLElement && el.checkVisibility() && el.innerText.trim() !== '';
    const unlabelled = controls
      .filter((el) => {
        if (el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement) return !Array.from(el.labels ?? []).some(drawn);
        return !drawn(el);
      })
      .map((el) => el.outerHTML.slice(0, 80));
    return { count: controls.length, unlabelled };
  });
  await panel.locator('[data-tab-audit="0"]').focus();
  const reached = new Set<string>(['0']);
  for (let i = 0; i < all.count * 2 + 10; i++) {
    await page.keyboard.press('Tab');
    const at = await page.evaluate(() => {
      const el = document.activeElement;
      return el?.closest('[aria-label="Side panel"]') ? (el.getAttribute('data-tab-audit') ?? 'other') : null;
    });
    if (at === null) break;
    reached.add(at);
  }
  const unreached = await panel.evaluate(
    (root, seen) =>
      Array.from(root.querySelectorAll<HTMLElement>('[data-tab-audit]'))
        .filter((el) => !seen.includes(el.getAttribute('data-tab-audit') ?? ''))
        // A radio group is one Tab stop: its other buttons are reached by the arrows.
        .filter((el) => !(el instanceof HTMLInputElement && el.type === 'radio' && !el.checked))
        .map((el) => el.outerHTML.slice(0, 80)),
    [...reached],
  );
  return { controls: all.count, unreached, unlabelled: all.unlabelled };
}

for (const size of [
  { width: 1280, height: 800 },
  { width: 390, height: 800 },
]) {
  test(`the Listener panel at ${size.width} px: no accessibility violation, every control reached by Tab with a visible label`, async ({ app: page }) => {
    await page.setViewportSize(size);
    await listenOnLan(page);
    const form = page.getByRole('form', { name: 'Change the listener' });
    const faults = form.getByRole('group', { name: 'Faults on purpose' });
    await faults.getByLabel('What it does').selectOption({ label: 'Slow down' });
    await faults.getByLabel('Delay (ms)').fill('200');
    await faults.getByRole('button', { name: 'Add fault rule' }).click();
    await form.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByRole('heading', { name: /^Listener/ })).toHaveText('Listener Faults on');
    // The page itself does not scroll: the side panel does. (A visually hidden word of the api_key's,
    // placed against the page rather than the panel, once made it 600 px taller at 390 px.)
    expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeLessThanOrEqual(1);
    await page.locator('.app-keys').getByRole('button', { name: 'Show api_key' }).click();
    if (size.width === 1280) await faults.screenshot({ path: screenshotPath('listener-fault-rules') });

    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')})`)).toEqual([]);
    const gaps = await keyboardGaps(page);
    // The Copy and Show buttons, the form's fields and the fault rule's: a panel's worth, not an empty audit.
    expect(gaps.controls).toBeGreaterThan(15);
    expect(gaps).toEqual({ controls: gaps.controls, unreached: [], unlabelled: [] });

    // Saved but not applied to anything while the listener is off: the header says no more than that.
    await switchOff(page);
    await expect(page.getByRole('heading', { name: /^Listener/ })).toHaveText('Listener');
    await expect(page.getByRole('heading', { name: 'Fault rules', exact: true })).toBeVisible();
    await expect(page.getByTestId('listener-faults').getByRole('listitem')).toHaveText(['*:latency=200ms']);
    await faults.getByRole('button', { name: 'Remove the fault rule *:latency=200ms' }).click();
    await form.getByRole('button', { name: 'Apply' }).click();
    await expect(page.getByTestId('listener-faults')).toHaveCount(0);
  });
}

test('the .local name said not announced; the certificate authority replaced after asking, and served at once', async ({ app: page }) => {
  const port = await listenOnLan(page);
  const panel = page.getByRole('complementary', { name: 'Side panel' });
  // The e2e server announces on no interface (playwright.config.ts): the panel says so rather than offer a name nobody answers.
  await expect(panel.getByText(/is announced on no network interface of this computer/)).toBeVisible();
  await expect(panel.getByText(/^poi-[0-9a-f]{6}\.local$/)).toBeVisible();
  await expect(panel.getByRole('button', { name: 'Copy name' })).toHaveCount(0);

  const before = await (await fetch(`http://127.0.0.1:${port}/ca.pem`)).text();
  const replace = panel.getByRole('button', { name: 'Replace the authority…' });
  // Asked first, the safe answer focused: Escape or Enter keeps the authority.
  await replace.click();
  await expect(page.getByRole('alertdialog')).toContainText('Every phone that trusts the old one');
  await expect(page.getByRole('button', { name: 'Keep the current one' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alertdialog')).toHaveCount(0);
  await expect(replace).toBeFocused();
  expect(await (await fetch(`http://127.0.0.1:${port}/ca.pem`)).text()).toBe(before);

  await replace.click();
  await answerConfirm(page, 'Replace the authority');
  await expect(panel.getByRole('status').filter({ hasText: 'A new certificate authority is in place' })).toBeVisible();
  // Focus stays where the person was, not dropped to the page.
  await expect(replace).toBeFocused();
  const after = await (await fetch(`http://127.0.0.1:${port}/ca.pem`)).text();
  expect(after).toContain('BEGIN CERTIFICATE');
  expect(after).not.toBe(before);
  // The fingerprint the panel shows is the new authority's: what the phone must show too.
  await expect(panel.locator('.fingerprint')).toHaveText(new X509Certificate(after).fingerprint256);
  await switchOff(page);
});
