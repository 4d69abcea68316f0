import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addOldTree, DEFAULT_OLD, fillWithTree, missingCommit } from './old-main.js';
import { ROOT } from './server-child.js';
import { countersOf, RAW_BATCH, rawInsert } from './writes.js';

/** The writes bench's own parts, cheaply: its raw-insert baselines and its old-main worktree. */
const dir = mkdtempSync(join(tmpdir(), 'poi-writes-bench-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the raw-insert baselines', () => {
  it('insert 2,000 rows through every trigger, and through none once they are dropped', async () => {
    const template = join(dir, 'template.sqlite');
    const seeded = await fillWithTree(ROOT, template, 2000);
    expect(seeded.maxId).toBe(2000);
    const all = rawInsert(template, seeded.clientId, 2000, true, dir);
    const none = rawInsert(template, seeded.clientId, 2000, false, dir);
    // Each starts from the same filled copy, not from what the other left.
    expect(all.pois).toBe(4000);
    expect(none.pois).toBe(4000);
    // The triggers really ran (the change log is one of them) in one and not in the other.
    expect(all.triggers).toBeGreaterThan(0);
    expect(all.changes).toBe(2000);
    expect(none.triggers).toBe(0);
    expect(none.changes).toBe(0);
    for (const run of [all, none]) expect(run.rowsPerSecond).toBeGreaterThan(0);
    expect(RAW_BATCH).toBe(18);
  }, 60_000);
});

describe('the per-add profile', () => {
  it("reads the CPU time a process spends from /proc, as the process itself counts it", () => {
    const cpu = (): number => {
      const used = process.cpuUsage();
      return (used.user + used.system) / 1e6;
    };
    const [countedBefore, usedBefore] = [countersOf(process.pid), cpu()];
    // 0.3 s of CPU, however long a shared machine takes to give it.
    const until = performance.now() + 20_000;
    while (cpu() - usedBefore < 0.3 && performance.now() < until) for (let i = 0; i < 1e5; i++) Math.sqrt(i);
    const [countedAfter, usedAfter] = [countersOf(process.pid), cpu()];
    const spent = usedAfter - usedBefore;
    expect(spent).toBeGreaterThanOrEqual(0.3);
    // /proc counts in clock ticks (10 ms each).
    expect(Math.abs(countedAfter.cpuSeconds - countedBefore.cpuSeconds - spent)).toBeLessThan(0.05);
    expect(countedAfter.writeCalls).toBeGreaterThan(0);
  });
});

describe('the old main beside this tree', () => {
  const missing = missingCommit(DEFAULT_OLD);
  it.skipIf(missing !== null)(`is checked out as a worktree and removed after${missing ? ` (skipped: ${missing})` : ''}`, () => {
    const old = addOldTree(DEFAULT_OLD);
    try {
      expect(existsSync(join(old.tree, 'main/cli.ts'))).toBe(true);
      expect(lstatSync(join(old.tree, 'node_modules')).isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(old.tree, 'node_modules'))).toBe(join(ROOT, 'node_modules'));
      expect(execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: old.tree, encoding: 'utf8' }).trim()).toBe(old.commit);
    } finally {
      old.remove();
    }
    expect(existsSync(old.tree)).toBe(false);
    expect(execFileSync('git', ['worktree', 'list', '--porcelain'], { cwd: ROOT, encoding: 'utf8' })).not.toContain(old.tree);
  });
  if (missing) console.log(`writes bench test: old-main worktree skipped: ${missing}`);
});
