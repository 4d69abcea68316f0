import { test, expect } from '@playwright/test';
import { screenshotPath } from './fixtures.js';
import { openCore } from '../support/core.js';
import { ApiServer } from '../../main/http/server.js';

test('the API reference page opens offline and lists every operation from the generated OpenAPI document', async ({ page }) => {
  const core = openCore({ file: ':memory:' });
  const server = new ApiServer(core, { port: 0 });
  const { port } = await server.start();
  const elsewhere: string[] = [];
  try {
    // No network: anything not served by the listener itself fails.
    await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => {
      elsewhere.push(route.request().url());
      return route.abort();
    });
    await page.goto(`http://127.0.0.1:${port}/1/reference`);
    await expect(page.getByRole('heading', { name: /POI & Membership API/ })).toBeVisible();
    for (const path of ['/pois/add.json', '/pois/get_near.json', '/users/login.json', '/users/{id}/show.json', '/pois/history.json']) {
      await expect(page.getByText(path, { exact: true }).first()).toBeVisible();
    }
    // An operation opens to its parameters, read from the same declaration.
    await page.getByText('/pois/get_near.json', { exact: true }).first().click();
    await expect(page.locator('.parameter__name', { hasText: 'radius' }).first()).toBeVisible();
    await page.screenshot({ path: screenshotPath('api-reference') });
    expect(elsewhere).toEqual([]);
  } finally {
    await server.stop();
    core.close();
  }
});
