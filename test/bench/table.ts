import type { ContentionResult } from './contention.js';
import type { HttpBenchResult, Measured } from './http-bench.js';
import type { MemoryBenchResult } from './memory.js';
import type { PoiBenchResult } from './pois.js';
import { fmt } from './stats.js';
import type { LoadResult } from './wrk.js';

export const HEADERS = ['Figure', 'Tool', 'Value', 'p50 / median', 'p99', 'Baseline (same run)', 'Ratio', 'Goal'] as const;
export type Row = [string, string, string, string, string, string, string, string];

/** The goals of this machine: add >= 0.5 x bare, get >= 0.7 x bare, p99 < 10 ms for both. */
export const GOALS = { add: 0.5, get: 0.7, p99Ms: 10 } as const;

const rps = (n: number): string => `${Math.round(n).toLocaleString('en')} req/s`;
const ms = (n: number): string => `${fmt(n)} ms`;
const mib = (n: number): string => `${n.toFixed(0)} MiB`;
const errors = (r: Pick<LoadResult, 'non2xx' | 'socketErrors'>): string =>
  r.non2xx || r.socketErrors ? ` [${r.non2xx} non-2xx, ${r.socketErrors} socket errors]` : '';

export function goalMet(m: Measured, ratio: number, min: number): boolean {
  return ratio >= min && m.p99 < GOALS.p99Ms && m.non2xx === 0 && m.socketErrors === 0;
}

function load(label: string, r: LoadResult | Measured, baseline = '', ratio = '', goal = ''): Row {
  return [label + errors(r), r.tool, rps(r.rps), ms(r.p50), ms(r.p99), baseline, ratio, goal];
}

/** The one table `npm run bench` prints (and writes with the JSON). */
export function buildRows(h: HttpBenchResult | undefined, p: PoiBenchResult | undefined, m: MemoryBenchResult | undefined): Row[] {
  const rows: Row[] = [];
  if (h) {
    const c = h.bare.connections;
    const bare = `bare ${rps(h.bare.rps)}`;
    const verdict = (met: boolean, text: string): string => `${met ? 'met' : 'NOT MET'} (${text})`;
    rows.push(load(`bare node:http, fixed ${h.replyBytes} B JSON, ${c} conn`, h.bare));
    rows.push(
      load(`add.json, ${c} conn (median of ${h.add.runs.length})`, h.add, bare, `${h.ratio.add.toFixed(2)}x`,
        verdict(goalMet(h.add, h.ratio.add, GOALS.add), `>=${GOALS.add}x, p99<${GOALS.p99Ms}ms`)),
    );
    rows.push(
      load(`get.json, ${c} conn (median of ${h.get.runs.length})`, h.get, bare, `${h.ratio.get.toFixed(2)}x`,
        verdict(goalMet(h.get, h.ratio.get, GOALS.get), `>=${GOALS.get}x, p99<${GOALS.p99Ms}ms`)),
    );
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
    rows.push([`viewport markers, ~0.08x0.16 deg (median ${p.viewportMarkersMedian} markers)`, 'core, in-process', `${p.viewport.runs} runs`,
      ms(p.viewport.median), ms(p.viewport.p99), '', '', '']);
  }
  if (m) {
    const n = m.pois.toLocaleString('en');
    rows.push(load(`get_near over HTTP r=1 km total<=100 (${n} POIs, ${m.near1km.connections} conn)`, m.near1km));
    rows.push(load(`get_near over HTTP r=5 km total<=1000 (${n} POIs, ${m.near5km.connections} conn)`, m.near5km));
    if (m.viewport) rows.push(load(`map viewport over HTTP, console pois.map zoom 13 (${n} POIs, ${m.viewport.connections} conn)`, m.viewport));
    const base = h ? `same CLI on 1k POIs ${mib(h.serviceMemory.rssMiB)}; bare ${mib(h.bareMemory.rssMiB)}` : '';
    rows.push([`start-up until answering < 100 ms (${n} POIs)`, 'get_near probe', `${m.responsiveAfterSeconds.toFixed(1)} s`, '', '',
      `RSS 1 s after listening ${mib(m.started.rssMiB)}, then ${mib(m.warmed.rssMiB)}`, '', '']);
    rows.push([`RSS of serving child after ${n} POIs + ${m.viewport ? 'get_near/viewport' : 'get_near'} load`, '/proc VmRSS', mib(m.loaded.rssMiB),
      '', `peak ${mib(m.loaded.peakRssMiB)}`, base, h ? `${(m.loaded.rssMiB / h.serviceMemory.rssMiB).toFixed(2)}x` : '', '']);
    rows.push([`fill ${n} POIs through the core (10k per transaction)`, 'core, in-process', `${m.fillSeconds.toFixed(1)} s`, '', '', `database ${mib(m.databaseMiB)}`, '', '']);
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

export function renderTable(rows: readonly Row[]): string {
  const all: ReadonlyArray<readonly string[]> = [HEADERS, ...rows];
  const widths = HEADERS.map((_, i) => Math.max(...all.map((r) => (r[i] ?? '').length)));
  const render = (r: readonly string[]): string => r.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ').trimEnd();
  return [render(HEADERS), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(render)].join('\n');
}
