import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SyncBenchResult } from './sync.js';

const root = join(import.meta.dirname, '../..');

/**
 * Each tree's own sync bench, run in a child process that prints its result as one JSON line:
 * written beside that tree's `test/bench/sync.ts` for the run (an older commit has no such
 * entry of its own), removed after.
 */
const DRIVER = `import { benchSync } from './sync.js';
const result = await benchSync(Number(process.argv[2]), Number(process.argv[3]), (line) => process.stderr.write(line + '\\n'));
process.stdout.write('RESULT ' + JSON.stringify(result) + '\\n');
`;

function runIn(tree: string, changes: number, bigPull: number): Promise<SyncBenchResult> {
  const driver = join(tree, 'test/bench', `.sync-driver-${process.pid}.mts`);
  writeFileSync(driver, DRIVER);
  return new Promise<SyncBenchResult>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', driver, String(changes), String(bigPull)], { cwd: tree, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code) => {
      rmSync(driver, { force: true });
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (code !== 0 || !line) reject(new Error(`the sync bench in ${tree} exited ${code}`));
      else resolve(JSON.parse(line.slice(7)) as SyncBenchResult);
    });
  });
}

/** The median of each figure over the rounds. */
function median(results: readonly SyncBenchResult[]): SyncBenchResult {
  const mid = <T>(pick: (r: SyncBenchResult) => T & number): number => {
    const sorted = results.map(pick).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)]!;
  };
  const first = results[0]!;
  return {
    changes: first.changes,
    pushCreates: { ms: mid((r) => r.pushCreates.ms), perSecond: mid((r) => r.pushCreates.perSecond) },
    pushUpdates: { ms: mid((r) => r.pushUpdates.ms), perSecond: mid((r) => r.pushUpdates.perSecond) },
    pull: { ms: mid((r) => r.pull.ms), perSecond: mid((r) => r.pull.perSecond) },
    // A baseline commit's bench may predate the raw-insert baseline.
    ...(results.every((r) => r.rawPull) && { rawPull: { ms: mid((r) => r.rawPull!.ms), perSecond: mid((r) => r.rawPull!.perSecond), ratio: mid((r) => r.rawPull!.ratio) } }),
    firstPull: { pois: first.firstPull.pois, ms: mid((r) => r.firstPull.ms), perSecond: mid((r) => r.firstPull.perSecond), peakRssMiB: mid((r) => r.firstPull.peakRssMiB) },
  };
}

/**
 * The sync bench of this tree and of another commit (`--baseline REF`), in the same run and on
 * the same machine, alternated round by round (baseline, this, baseline, this...) so that a slow
 * spell of a shared machine falls on both; medians of the rounds.
 */
export async function benchSyncAgainst(ref: string, changes: number, bigPull: number, rounds: number, log: (s: string) => void = console.log): Promise<{ current: SyncBenchResult; baseline: SyncBenchResult; ref: string }> {
  const commit = execFileSync('git', ['rev-parse', '--short', ref], { cwd: root, encoding: 'utf8' }).trim();
  const tree = mkdtempSync(join(tmpdir(), 'poi-bench-baseline-'));
  execFileSync('git', ['worktree', 'add', '--detach', tree, commit], { cwd: root, stdio: 'ignore' });
  try {
    symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
    const current: SyncBenchResult[] = [];
    const baseline: SyncBenchResult[] = [];
    for (let round = 1; round <= rounds; round++) {
      log(`sync, round ${round} of ${rounds}: ${commit} (baseline)`);
      baseline.push(await runIn(tree, changes, bigPull));
      log(`sync, round ${round} of ${rounds}: this tree`);
      current.push(await runIn(root, changes, bigPull));
    }
    return { current: median(current), baseline: median(baseline), ref: commit };
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', tree], { cwd: root, stdio: 'ignore' });
  }
}
