import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { ACTION_KINDS, history, type Action, type History } from './actions.js';
import { runHistory } from './history.js';
import { startWorld } from './world.js';

/**
 * `npm run soak -- --histories N [--seed S [--path P]] [--max-actions M] [--without restore,attack] [--no-shrink]`:
 * the sync checker's long run (CI runs 40 histories, test/central/sync-checker.test.ts). Prints
 * its seed first, progress as it goes, and on a failure the seed and path that replay it.
 */
const { values } = parseArgs({
  options: {
    histories: { type: 'string', default: '2000' },
    seed: { type: 'string' },
    path: { type: 'string' },
    'max-actions': { type: 'string', default: '40' },
    without: { type: 'string', default: '' },
    survey: { type: 'boolean', default: false },
    // The failing history as generated, not shrunk: a shrunk one may show another, smaller violation.
    'no-shrink': { type: 'boolean', default: false },
  },
});
const without = values.without.split(',').filter((k) => k !== '');
const unknown = without.filter((k) => !(ACTION_KINDS as readonly string[]).includes(k));
if (unknown.length > 0) throw new Error(`--without ${unknown.join(',')}: the kinds are ${ACTION_KINDS.join(', ')}`);
const histories = Number(values.histories);
const seed = values.seed === undefined ? Date.now() ^ (Math.random() * 0x100000000) : Number(values.seed);
console.log(`soak: ${histories} histories, seed ${seed}${values.path ? `, path ${values.path}` : ''}${without.length ? `, without ${without.join(',')}` : ''}`);

/**
 * `--survey`: runs every history to the end whatever it finds, and prints each kind of violation
 * once with the history that showed it first (`--path N` with the same seed replays history N).
 */
const KINDS: ReadonlyArray<[string, RegExp]> = [
  ['a creation time a millisecond off', /registered_at/],
  ['a write lost', /^lost write/],
  ['a desktop differs from the central', /differs from the central/],
  ['a desktop cannot sync (stuck)', /cannot sync|sync failed|did not settle/],
  ['a desktop holds a row the API refuses', /which the API's rules refuse/],
  ["another client's data changed", /client Y, never synced, changed/],
  ['own rows counted as received', /rows received, though nothing changed elsewhere/],
  ['keeping the edit left the row deleted', /the edit was kept, yet/],
  ['keeping the delete left the row there', /the delete was kept, yet/],
  ['a resolution did not hold', /was resolved to .* by keeping one side/],
  ['resolving failed', /^resolving conflict .* failed/],
  ['resolving made new conflicts', /conflicts open \(resolving made new ones/],
  ['a refused action changed data', /a refused .* changed data/],
];
/** A violation's kind; a lost write is told apart by what came before it (a restore, a delete), the known ways sync lost one. */
function classify(violation: string, h: History): string {
  const v = violation.replace(/^(step \d+|after the history|after resolving): /, '');
  const lost = /^lost write #\d+ \(step (\d+), desktop (\d+)\)/.exec(v);
  if (lost && !/registered_at/.test(v)) {
    // Steps count from 1, one per action: the write was action step - 1.
    const [step, desktop] = [Number(lost[1]), Number(lost[2])];
    const restoredBefore = h.actions.slice(0, step - 1).some((a) => a.kind === 'restore' && a.d % h.desktops === desktop);
    if (restoredBefore) return 'a write made after a restore of its desktop lost';
    if (/everywhere it is \(absent\)/.test(v)) return 'an edit lost to a delete, with no conflict';
  }
  return KINDS.find(([, re]) => re.test(v))?.[0] ?? 'other';
}

const kinds = new Map<string, { count: number; first: number; example: string; actions: string }>();
function survey(index: number, h: History, violations: readonly string[]): void {
  const classified = violations.map((v) => [classify(v, h), v] as const);
  for (const kind of new Set(classified.map(([k]) => k))) {
    const seen = kinds.get(kind);
    if (seen) seen.count++;
    else kinds.set(kind, { count: 1, first: index, example: classified.find(([k]) => k === kind)![1], actions: [...new Set(h.actions.map((a) => a.kind))].join(',') });
  }
}

const world = await startWorld();
const started = performance.now();
let done = 0;
const totals = { steps: 0, writes: 0, conflicts: 0, syncs: 0 };
try {
  const result = await fc.check(
    fc.asyncProperty(history({ maxActions: Number(values['max-actions']), without: without as Array<Action['kind']> }), async (h) => {
      const outcome = await runHistory(world, h);
      done++;
      totals.steps += outcome.steps;
      totals.writes += outcome.writes;
      totals.conflicts += outcome.conflicts;
      totals.syncs += outcome.syncs;
      if (done % 50 === 0) console.log(`  ${done} histories, ${((performance.now() - started) / 1000).toFixed(0)} s`);
      if (values.survey) {
        survey(done - 1, h, outcome.violations);
        return;
      }
      if (outcome.violations.length > 0) throw new Error(outcome.violations.slice(0, 12).join('\n'));
    }),
    { numRuns: histories, seed, ...(values.path ? { path: values.path } : {}), endOnFailure: values['no-shrink'] },
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`soak: ${done} histories run in ${seconds.toFixed(0)} s (${totals.steps} steps, ${totals.writes} writes followed, ${totals.syncs} syncs, ${totals.conflicts} conflicts recorded)`);
  if (values.survey) {
    console.log(`soak: ${kinds.size} kinds of violation`);
    for (const [kind, k] of [...kinds].sort((a, b) => b[1].count - a[1].count)) console.log(`- ${kind}: in ${k.count} histories, first in history ${k.first} (--seed=${seed} --path ${k.first}; actions ${k.actions}):\n  ${k.example}`);
    if (kinds.size > 0) process.exitCode = 1;
  } else if (result.failed) {
    console.log(fc.defaultReportMessage(result));
    console.log(`What broke:\n${result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance)}`);
    process.exitCode = 1;
  } else console.log('soak: no violation');
} finally {
  await world.close();
}
