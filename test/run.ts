import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { buildRenderer } from '../main/build/renderer.js';
import { findChromium } from './e2e/find-chromium.js';

/**
 * `npm test`: the typecheck and the linter, the unit, core and HTTP suites (vitest), then the end-to-end suite in a real
 * Chromium (Playwright), then one plain summary line (`N passed, N failed, N skipped`) for CI.
 * Arguments go to vitest alone and skip the end-to-end suite (`npm test -- test/http`);
 * `npm test -- --e2e-only` runs only the end-to-end suite.
 */
const root = join(import.meta.dirname, '..');
const results = join(root, 'test', 'results');
rmSync(results, { recursive: true, force: true });
mkdirSync(results, { recursive: true });

const args = process.argv.slice(2);
const e2eOnly = args.includes('--e2e-only');
const vitestArgs = args.filter((a) => a !== '--e2e-only');
const tally = { passed: 0, failed: 0, skipped: 0 };
let ok = true;

const bin = (name: string): string => join(root, 'node_modules', '.bin', name);

/** Strict TypeScript first: a type error fails the run like a failed test. */
function typecheck(): boolean {
  // Electron's types come with its optional package, absent where its download failed.
  const desktop = existsSync(join(root, 'node_modules', 'electron', 'electron.d.ts'));
  const configs = [desktop ? 'tsconfig.json' : 'test/tsconfig.no-desktop.json', 'renderer/tsconfig.json'];
  if (!desktop) {
    console.log('typecheck: main/desktop skipped: electron (an optional dependency) is not installed here, so its types are missing');
  }
  return configs.every((config) => spawnSync(bin('tsc'), ['--noEmit', '-p', config], { cwd: root, stdio: 'inherit' }).status === 0);
}

/** The linter: the zones of docs/design.md#zones and the code rules (eslint.config.js). */
const lint = (): boolean => spawnSync(bin('eslint'), ['.'], { cwd: root, stdio: 'inherit' }).status === 0;

/** A step that is not a test suite counts as one test: one failure when it fails. */
function step(name: string, passed: boolean): void {
  if (passed) console.log(`${name}: passed`);
  else {
    console.error(`${name}: failed`);
    tally.failed += 1;
    ok = false;
  }
}

if (vitestArgs.length === 0) {
  step('typecheck', typecheck());
  step('lint', lint());
}

if (!e2eOnly) {
  const out = join(results, 'vitest.json');
  const run = spawnSync(bin('vitest'), ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${out}`, ...vitestArgs], {
    cwd: root,
    stdio: 'inherit',
  });
  ok &&= run.status === 0;
  try {
    const json = JSON.parse(readFileSync(out, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
    tally.passed += json.numPassedTests;
    tally.failed += json.numFailedTests;
    tally.skipped += json.numPendingTests + json.numTodoTests;
  } catch {
    console.error('vitest wrote no results: counted as one failure');
    tally.failed += 1;
    ok = false;
  }
}

if (vitestArgs.length === 0) {
  const chromium = findChromium();
  if ('error' in chromium) {
    console.error(chromium.error);
    tally.failed += 1;
    ok = false;
  } else {
    console.log(`\nEnd-to-end tests in ${chromium.path}`);
    buildRenderer();
    const out = join(results, 'playwright.json');
    const run = spawnSync(bin('playwright'), ['test', '--config', 'test/e2e/playwright.config.ts', '--reporter=list,json'], {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, CHROMIUM_PATH: chromium.path, PLAYWRIGHT_JSON_OUTPUT_NAME: out },
    });
    ok &&= run.status === 0;
    try {
      const json = JSON.parse(readFileSync(out, 'utf8')) as { stats: { expected: number; unexpected: number; flaky: number; skipped: number } };
      tally.passed += json.stats.expected + json.stats.flaky;
      tally.failed += json.stats.unexpected;
      tally.skipped += json.stats.skipped;
    } catch {
      console.error('Playwright wrote no results: counted as one failure');
      tally.failed += 1;
      ok = false;
    }
  }
}

console.log(`\n${tally.passed} passed, ${tally.failed} failed, ${tally.skipped} skipped`);
process.exitCode = ok && tally.failed === 0 ? 0 : 1;
