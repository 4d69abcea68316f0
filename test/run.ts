import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `npm test`: runs every suite, then prints one plain summary line (`N passed, N failed,
 * N skipped`) that CI reads. Extra arguments go to vitest (e.g. a file filter).
 */
const root = join(import.meta.dirname, '..');
const resultsDir = join(root, 'test', 'results');
rmSync(resultsDir, { recursive: true, force: true });
mkdirSync(resultsDir, { recursive: true });

interface VitestJson {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
}

const vitestOut = join(resultsDir, 'vitest.json');
const vitest = spawnSync(
  join(root, 'node_modules', '.bin', 'vitest'),
  ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestOut}`, ...process.argv.slice(2)],
  { cwd: root, stdio: 'inherit' },
);

let passed = 0;
let failed = 0;
let skipped = 0;
try {
  const json = JSON.parse(readFileSync(vitestOut, 'utf8')) as VitestJson;
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  skipped += json.numPendingTests + json.numTodoTests;
} catch {
  console.error('vitest wrote no results: counting the run as one failure');
  failed += 1;
}
const ok = vitest.status === 0 && failed === 0;
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exitCode = ok ? 0 : 1;
