import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

/** Flags Chromium needs on machines with no network and no display server. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const SYSTEM = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

/**
 * A Chromium for the end-to-end tests: $CHROMIUM_PATH, else a system Chromium, else Playwright's
 * own download. Where none exists and we are root with apt, Debian's `chromium` is installed.
 * Otherwise the reason is one sentence.
 */
export function findChromium(install = true): { path: string } | { error: string } {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? { path: fromEnv } : { error: `CHROMIUM_PATH is set to ${fromEnv}, which does not exist.` };
  const system = SYSTEM.find((p) => existsSync(p));
  if (system) return { path: system };
  try {
    const own = chromium.executablePath();
    if (own && existsSync(own)) return { path: own };
  } catch {
    // Playwright has no browser of its own here.
  }
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const apt = spawnSync('sh', ['-c', 'command -v apt-get'], { encoding: 'utf8' }).status === 0;
  if (install && root && apt) {
    console.log('No Chromium found: installing Debian\'s chromium with apt-get...');
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    const done = spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (done.status === 0) return findChromium(false);
  }
  return {
    error:
      'No Chromium was found for the end-to-end tests: install one (e.g. `apt-get install chromium`) or set CHROMIUM_PATH to its executable.',
  };
}
