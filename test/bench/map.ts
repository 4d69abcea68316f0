/// <reference lib="dom" />
import { chromium, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserMode } from '../../main/app/browser-mode.js';
import { ensureRenderer } from '../../main/build/renderer.js';
import { openCore } from '../support/core.js';
import { prepareDataDir } from '../../main/data-dir.js';
import { CHROMIUM_ARGS, findChromium } from '../e2e/find-chromium.js';
import { fillPois } from './fill.js';
import { startMarkerClusterPage } from './markercluster-page.js';
import type { Row } from './table.js';

export interface MapBenchResult {
  pois: number;
  runs: number;
  ours: { firstDrawMs: number; panMs: number; zoomMs: number };
  markercluster: { firstDrawMs: number; panMs: number; zoomMs: number };
  firstDrawRatio: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Time from the call to the next `mark` (or `moveend` + paint for the baseline). Written as a
 * string: tsx's transform would add helpers to a function that the page does not have.
 */
async function timeUntilMark(page: Page, mark: string, action: string): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    const before = performance.getEntriesByName(${JSON.stringify(mark)}).length;
    const t0 = performance.now();
    const poll = () => {
      const marks = performance.getEntriesByName(${JSON.stringify(mark)});
      if (marks.length > before) resolve(marks[marks.length - 1].startTime - t0);
      else setTimeout(poll, 2);
    };
    ${action};
    poll();
  })`);
}

/** Where each run pans to (at zoom 6) and then zooms in (to 7): five views over the filled area. */
const MOVES: ReadonlyArray<[number, number]> = [
  [41, 0],
  [45, 5],
  [48, 12],
  [43, 20],
  [39, -5],
];

const BASELINE_MOVE = (move: string) => `
  const map = window.benchMap;
  map.once('moveend', () => requestAnimationFrame(() => requestAnimationFrame(() => performance.mark('mc-drawn'))));
  ${move}`;

/**
 * In Chromium, with `count` POIs: our map (clusters computed in the main process, only the
 * viewport's points sent and drawn) against Leaflet.markercluster given every POI, in the same
 * run: time from navigation to the first drawn map, and to redraw after a pan and a zoom.
 */
export async function benchMap(count = 100_000, runs = 3, log: (s: string) => void = console.log): Promise<MapBenchResult> {
  const found = findChromium();
  if ('error' in found) throw new Error(found.error);
  ensureRenderer();
  const dir = mkdtempSync(join(tmpdir(), 'poi-map-bench-'));
  const file = prepareDataDir(dir);
  const seed = openCore({ file, geocoder: { reverse: async () => ({}) } });
  const { clientId } = fillPois(seed, count);
  const points = seed.db.prepare('SELECT lat, lng, name FROM pois WHERE client_id = ?').raw().all(clientId) as Array<[number, number, string]>;
  seed.close();
  const baseline = await startMarkerClusterPage(points);
  const browser = await chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS });
  const ours = { first: [] as number[], pan: [] as number[], zoom: [] as number[] };
  const theirs = { first: [] as number[], pan: [] as number[], zoom: [] as number[] };
  try {
    for (let run = 0; run < runs; run++) {
      // A fresh server each run: the first draw includes building the cluster index (cold).
      const running = await startBrowserMode({ file, port: 0, log: () => undefined });
      try {
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (r) => r.abort());
        await page.goto(`${running.url}`);
        await page.evaluate(() => localStorage.clear());
        await page.goto(`${running.url.replace(/#.*$/, '')}#map=6/40.00000/-3.00000`);
        await page.waitForFunction(() => performance.getEntriesByName('poi-map-first-draw').length > 0, null, { timeout: 120_000 });
        ours.first.push(await page.evaluate(() => performance.getEntriesByName('poi-map-first-draw')[0]!.startTime));
        for (const [lat, lng] of MOVES) {
          ours.pan.push(await timeUntilMark(page, 'poi-map-drawn', `location.hash = '#map=6/${lat}/${lng}'`));
          ours.zoom.push(await timeUntilMark(page, 'poi-map-drawn', `location.hash = '#map=7/${lat}/${lng}'`));
          await timeUntilMark(page, 'poi-map-drawn', `location.hash = '#map=6/${lat}/${lng + 0.5}'`);
        }
        await page.close();
      } finally {
        await running.stop();
      }
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (r) => r.abort());
      await page.goto(baseline.url);
      await page.waitForFunction(() => performance.getEntriesByName('mc-first-draw').length > 0, null, { timeout: 300_000 });
      theirs.first.push(await page.evaluate(() => performance.getEntriesByName('mc-first-draw')[0]!.startTime));
      for (const [lat, lng] of MOVES) {
        theirs.pan.push(await timeUntilMark(page, 'mc-drawn', BASELINE_MOVE(`map.setView([${lat}, ${lng}], 6, { animate: false });`)));
        theirs.zoom.push(await timeUntilMark(page, 'mc-drawn', BASELINE_MOVE(`map.setView([${lat}, ${lng}], 7, { animate: false });`)));
        await timeUntilMark(page, 'mc-drawn', BASELINE_MOVE(`map.setView([${lat}, ${lng + 0.5}], 6, { animate: false });`));
      }
      await page.close();
      log(`  run ${run + 1}: ours first draw ${ours.first.at(-1)!.toFixed(0)} ms, markercluster ${theirs.first.at(-1)!.toFixed(0)} ms`);
    }
  } finally {
    await browser.close();
    baseline.server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const result: MapBenchResult = {
    pois: count,
    runs,
    ours: { firstDrawMs: median(ours.first), panMs: median(ours.pan), zoomMs: median(ours.zoom) },
    markercluster: { firstDrawMs: median(theirs.first), panMs: median(theirs.pan), zoomMs: median(theirs.zoom) },
    firstDrawRatio: median(theirs.first) / median(ours.first),
  };
  log(`map, ${count.toLocaleString('en')} POIs (medians; first draw of ${runs} runs, redraws of ${ours.pan.length}):   ours   markercluster`);
  log(`  load to first drawn map            ${result.ours.firstDrawMs.toFixed(0).padStart(6)} ms  ${result.markercluster.firstDrawMs.toFixed(0).padStart(8)} ms   (${result.firstDrawRatio.toFixed(1)}x faster)`);
  log(`  redraw after a pan                 ${result.ours.panMs.toFixed(0).padStart(6)} ms  ${result.markercluster.panMs.toFixed(0).padStart(8)} ms`);
  log(`  redraw after a zoom                ${result.ours.zoomMs.toFixed(0).padStart(6)} ms  ${result.markercluster.zoomMs.toFixed(0).padStart(8)} ms`);
  return result;
}

/** The map's rows of `npm run bench`'s table (see table.ts for the columns). */
export function mapRows(m: MapBenchResult | undefined): Row[] {
  if (!m) return [];
  const pois = m.pois.toLocaleString('en');
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  const goal = (ok: boolean, text: string) => `${ok ? 'met' : 'NOT MET'} (${text})`;
  return [
    [`map: load to first drawn map (${pois} POIs, Chromium)`, 'Playwright', ms(m.ours.firstDrawMs), '', '', `markercluster ${ms(m.markercluster.firstDrawMs)}`, `${m.firstDrawRatio.toFixed(1)}x faster`, goal(m.firstDrawRatio >= 5, '>=5x')],
    [`map: redraw after a pan (${pois} POIs)`, 'Playwright', ms(m.ours.panMs), '', '', `markercluster ${ms(m.markercluster.panMs)}`, '', goal(m.ours.panMs < 100, '<100 ms')],
    [`map: redraw after a zoom (${pois} POIs)`, 'Playwright', ms(m.ours.zoomMs), '', '', `markercluster ${ms(m.markercluster.zoomMs)}`, '', goal(m.ours.zoomMs < 100, '<100 ms')],
  ];
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const n = Number(process.argv[2] ?? 100_000);
  await benchMap(n);
}
