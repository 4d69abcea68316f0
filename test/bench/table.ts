import type { ContentionResult } from './contention.js';
import type { HttpBenchResult, Measured } from './http-bench.js';
import type { PoiBenchResult } from './pois.js';
import { SCALE_GOALS, type ScaleBenchResult, type Sequential } from './scale.js';
import { fmt } from './stats.js';
import type { LoadResult } from './wrk.js';

export const HEADERS = ['Figure', 'Tool', 'Value', 'p50 / median', 'p99', 'Baseline (same run)', 'Ratio', 'Goal'] as const;
export type Row = [string, string, string, string, string, string, string, string];

/**
 * The goals of this machine: get.json and add.json at least 0.9 x the minimal reference doing the
 * same work, get.json at least 0.5 x bare node:http, p99 under 10 ms for both.
 */
export const GOALS = { toReference: 0.9, getToBare: 0.5, p99Ms: 10, inspectorOnToOff: 0.95 } as const;

const rps = (n: number): string => `${Math.round(n).toLocaleString('en')} req/s`;
const ms = (n: number): string => `${fmt(n)} ms`;
const mib = (n: number): string => `${n.toFixed(0)} MiB`;
const errors = (r: Pick<LoadResult, 'non2xx' | 'socketErrors'>): string =>
  r.non2xx || r.socketErrors ? ` [${r.non2xx} non-2xx, ${r.socketErrors} socket errors]` : '';

export function goalMet(m: Measured, ratios: ReadonlyArray<readonly [number, number]>): boolean {
  return ratios.every(([ratio, min]) => ratio >= min) && m.p99 < GOALS.p99Ms && m.non2xx === 0 && m.socketErrors === 0;
}

function load(label: string, r: LoadResult | Measured, baseline = '', ratio = '', goal = ''): Row {
  return [label + errors(r), r.tool, rps(r.rps), ms(r.p50), ms(r.p99), baseline, ratio, goal];
}

/** The one table `npm run bench` prints (and writes with the JSON). */
export function buildRows(h: HttpBenchResult | undefined, p: PoiBenchResult | undefined): Row[] {
  const rows: Row[] = [];
  if (h) {
    const c = h.bare.connections;
    const baselines = (ref: Measured): string => `reference ${rps(ref.rps)}; bare ${rps(h.bare.rps)}`;
    const ratios = (toRef: number, toBare: number): string => `${toRef.toFixed(2)}x ref, ${toBare.toFixed(2)}x bare`;
    rows.push(load(`bare node:http, fixed ${h.replyBytes} B JSON, ${c} conn`, h.bare));
    rows.push(load(`  minimal reference add.json (reference-server.ts), ${c} conn`, h.reference.add));
    rows.push(
      load(`add.json, ${c} conn (median of ${h.add.runs.length})`, h.add, baselines(h.reference.add), ratios(h.ratio.addToReference, h.ratio.add),
        verdict(goalMet(h.add, [[h.ratio.addToReference, GOALS.toReference]]), `>=${GOALS.toReference}x ref, p99<${GOALS.p99Ms}ms`)),
    );
    rows.push(load(`  minimal reference get.json, ${c} conn`, h.reference.get));
    rows.push(
      load(`get.json without the reply cache (--no-reply-cache), ${c} conn`, h.getUncached, baselines(h.reference.get), ratios(h.ratio.getToReference, h.getUncached.rps / h.bare.rps),
        verdict(goalMet(h.getUncached, [[h.ratio.getToReference, GOALS.toReference]]), `>=${GOALS.toReference}x ref, p99<${GOALS.p99Ms}ms`)),
    );
    rows.push(
      load(`get.json with the reply cache, ${c} conn (median of ${h.get.runs.length})`, h.get, `bare ${rps(h.bare.rps)}`, `${h.ratio.get.toFixed(2)}x bare`,
        verdict(goalMet(h.get, [[h.ratio.get, GOALS.getToBare]]), `>=${GOALS.getToBare}x bare, p99<${GOALS.p99Ms}ms`)),
    );
    // The request inspector (docs/devices.md#request-inspector) must not slow the listener.
    for (const [name, on, off, ratio] of [['get.json', h.get, h.inspectorOff.get, h.ratio.getInspectorOnToOff], ['add.json', h.add, h.inspectorOff.add, h.ratio.addInspectorOnToOff]] as const) {
      rows.push(load(`  ${name} with the request inspector off (--no-inspector), ${c} conn`, off));
      rows.push(load(`${name} with the request inspector on, ${c} conn`, on, `inspector off ${rps(off.rps)}`, `${ratio.toFixed(2)}x off`,
        verdict(ratio >= GOALS.inspectorOnToOff, `>=${GOALS.inspectorOnToOff}x off`)));
    }
    const a = h.login.argon2;
    rows.push(
      load(`login.json, correct password, ${h.login.result.connections} conn`, h.login.result,
        `argon2id m=${a.memoryCost} KiB t=${a.timeCost} p=${a.parallelism}, pool ${h.login.threadPool}`, '', 'bounded by argon2'),
    );
  }
  if (p) {
    const n = p.pois.toLocaleString('en');
    const scan = `scan w/o R*Tree ${ms(p.nearBaseline.median)}`;
    rows.push([`get_near r=${p.nearRadiusM} m total<=100 (${n} POIs)`, 'core, in-process', `${p.near.runs} runs`, ms(p.near.median), ms(p.near.p99), scan,
      `${(p.nearBaseline.median / p.near.median).toFixed(0)}x faster`, '']);
    rows.push([`get_near + category filter (${n} POIs)`, 'core, in-process', `${p.nearCategory.runs} runs`, ms(p.nearCategory.median), ms(p.nearCategory.p99), '', '', '']);
  }
  return rows;
}

/** A plain get.json alone and while heavy near queries run, measured in the same run. */
export function contentionRows(c: ContentionResult | undefined): Row[] {
  if (!c) return [];
  const n = c.densePois.toLocaleString('en');
  const alone = `alone: p50 ${ms(c.alone.p50)}, p99 ${ms(c.alone.p99)}`;
  return [
    load(`get.json, ${c.alone.connections} conn, alone`, c.alone),
    load(`get.json, ${c.underNear.connections} conn, while ${c.near.connections} conn send heavy near`, c.underNear, alone, `${(c.underNear.p99 / c.alone.p99).toFixed(1)}x p99`),
    load(`  those get_near: r=20,037 km, total=1000, over ${n} POIs in ~0.4x0.4 km`, c.near),
  ];
}

const verdict = (met: boolean, goal: string): string => `${met ? 'met' : 'NOT MET'} (${goal})`;
const seq = (label: string, tool: string, s: Sequential, baseline: string, goal: string): Row => [label, tool, `${s.runs} requests`, ms(s.p50), ms(s.p99), baseline, '', goal];

/** The scale section: map views, near queries, memory and a get.json beside heavy work, on a big file behind the CLI. */
export function scaleRows(s: ScaleBenchResult | undefined, huge: boolean): Row[] {
  if (!s) return [];
  const n = s.pois.toLocaleString('en');
  const tool = 'HTTP, one at a time';
  const viewGoal = huge ? SCALE_GOALS.hugeViewP99Ms : SCALE_GOALS.viewP99Ms;
  const viewVerdict = (v: Sequential, points = 0): string =>
    verdict(v.p99 < viewGoal && points <= SCALE_GOALS.points, `p99<${viewGoal}ms${points ? `, <=${SCALE_GOALS.points} points` : ''}`);
  const startRss = `RSS after the fill ${mib(s.afterFill.rssMiB)}`;
  const rows: Row[] = [[`fill ${n} POIs through the core (10k per transaction)`, 'core, in-process', `${s.fillSeconds.toFixed(0)} s`, '', '', `database ${mib(s.databaseMiB)}`, '', '']];
  rows.push(seq(`first map view after start, zoom 13 dense (${n} POIs)`, 'HTTP, fresh server', s.firstView, `max ${ms(s.firstView.max)}`, viewVerdict(s.firstView)));
  for (const v of s.views) {
    rows.push(seq(`map view zoom ${v.zoom}, ${v.area}, 1280x800 px (${n} POIs; at most ${v.maxPoints} points)`, tool, v, `max ${ms(v.max)}`, viewVerdict(v, v.maxPoints)));
  }
  rows.push(seq(`map view zoom 13 right after an add.json in it`, tool, s.viewAfterWrite, `max ${ms(s.viewAfterWrite.max)}`, viewVerdict(s.viewAfterWrite)));
  const nearGoal = (v: Sequential): string => (huge ? verdict(v.p50 < SCALE_GOALS.hugeNearMedianMs, `median<${SCALE_GOALS.hugeNearMedianMs}ms`) : '');
  const cached = s.cachedMiB === null ? 'page cache unknown (no fincore)' : `page cache held ${mib(s.cachedMiB)} of ${mib(s.databaseMiB)}`;
  rows.push(seq(`get_near r=1 km total<=100, dense`, tool, s.nearDense, cached, nearGoal(s.nearDense)));
  rows.push(seq(`get_near r=1 km total<=100, sparse`, tool, s.nearSparse, '', nearGoal(s.nearSparse)));
  rows.push(seq(`get_where q matching nothing (every POI read, in slices)`, tool, s.search, '', ''));
  const rssMet = (m: number): string => (huge ? '' : verdict(m < SCALE_GOALS.rssMiB, `<${SCALE_GOALS.rssMiB} MiB`));
  rows.push([`RSS of the serving child, ${n} POIs, 1 s after start`, '/proc VmRSS', mib(s.afterFill.rssMiB), '', '', '', '', rssMet(s.afterFill.rssMiB)]);
  rows.push([`RSS of the serving child after the views and queries above`, '/proc VmRSS', mib(s.afterViews.rssMiB), '', `peak ${mib(s.afterViews.peakRssMiB)}`, startRss, '', rssMet(s.afterViews.peakRssMiB)]);
  if (s.getAlone && s.getUnderHeavy && s.heavyNear && s.heavyViews && s.heavySearch) {
    const alone = `alone: p50 ${ms(s.getAlone.p50)}, p99 ${ms(s.getAlone.p99)}`;
    rows.push(load(`get.json on random ids, ${s.getAlone.connections} conn, alone (${n} POIs)`, s.getAlone));
    rows.push(load(`get.json, ${s.getUnderHeavy.connections} conn, beside the three heavy loads below`, s.getUnderHeavy, alone, `${(s.getUnderHeavy.p99 / s.getAlone.p99).toFixed(1)}x p99`,
      verdict(s.getUnderHeavy.p99 < SCALE_GOALS.getUnderHeavyP99Ms && s.getUnderHeavy.non2xx === 0, `p99<${SCALE_GOALS.getUnderHeavyP99Ms}ms`)));
    rows.push(load(`  get_near r=5 km total=1000, dense`, s.heavyNear));
    rows.push(load(`  map views, zooms 3/8/13/17, dense and sparse`, s.heavyViews));
    rows.push(load(`  get_where q matching nothing`, s.heavySearch));
  }
  return rows;
}

export function renderTable(rows: readonly Row[]): string {
  const all: ReadonlyArray<readonly string[]> = [HEADERS, ...rows];
  const widths = HEADERS.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const render = (r: readonly string[]): string => r.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ').trimEnd();
  return [render(HEADERS), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(render)].join('\n');
}
