import { defineConfig } from '@playwright/test';
import { CHROMIUM_ARGS, findChromium } from './find-chromium.js';
import { E2E_PORT } from './info.js';

const chromium = findChromium(false);

/** End-to-end tests of the admin UI in a real Chromium, against browser mode. */
export default defineConfig({
  testDir: '.',
  testMatch: /.*\.spec\.ts$/,
  outputDir: '../results/e2e-artifacts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    viewport: { width: 1280, height: 800 },
    // Dates are shown in the page's locale; the tests read them in this one.
    locale: 'en-US',
    launchOptions: { executablePath: 'path' in chromium ? chromium.path : undefined, args: CHROMIUM_ARGS },
    trace: 'off',
  },
  webServer: {
    command: `node --import tsx test/e2e/server.ts`,
    cwd: '../..',
    url: `http://127.0.0.1:${E2E_PORT}/`,
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'ignore',
    // A listener switched to the local network announces its .local name: on no interface here.
    env: { POI_MDNS_INTERFACES: '' },
  },
});
