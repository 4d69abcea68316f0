/// <reference lib="dom" />
import { chromium, type Page } from '@playwright/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserMode } from '../../main/app/browser-mode.js';
import { ensureRenderer } from '../../main/build/renderer.js';
import { prepareDataDir } from '../../main/data-dir.js';
import { openCore } from '../support/core.js';
import { CHROMIUM_ARGS, findChromium } from '../e2e/find-chromium.js';
import type { Row } from './table.js';

export interface BasemapBenchResult {
  runs: number;
  vector: { firstDrawMs: number; panMs: number };
  overview: { firstDrawMs: number; panMs: number };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** The sample city's middle at zoom 15 (all of its 3 x 3 tiles in view), and pans at zoom 16 inside it (each brings new tiles in). */
const START = '#map=15/37.76637/-122.44812';
const PANS = ['#map=16/37.76637/-122.44812', '#map=16/37.76637/-122.44000', '#map=16/37.77000/-122.44000', '#map=16/37.77000/-122.45500', '#map=16/37.76300/-122.45500', '#map=16/37.76300/-122.44500'];

/**
 * Milliseconds until every tile a pane holds is drawn (Leaflet marks each `leaflet-tile-loaded`),
 * after moving the map to `hash`, or since navigation when there is none. Written as a string: tsx would add
 * helpers the page lacks.
 */
function timeUntilDrawn(page: Page, pane: string, hash = ''): Promise<number> {
  return page.evaluate(`new Promise((resolve) => {
    const t0 = ${hash ? 'performance.now()' : '0'};
    const poll = () => {
      const tiles = document.querySelectorAll('${pane} .leaflet-tile');
      const waiting = document.querySelectorAll('${pane} .leaflet-tile:not(.leaflet-tile-loaded)');
      if (tiles.length > 0 && waiting.length === 0) resolve(performance.now() - t0);
      else setTimeout(poll, 2);
    };
    // The map moves in its own hashchange listener, which runs before this one: the new view's tiles exist by then.
    ${hash ? `window.addEventListener('hashchange', () => requestAnimationFrame(poll), { once: true }); location.hash = '${hash}';` : 'requestAnimationFrame(poll);'}
  })`);
}

/**
 * In Chromium, offline: the map over the sample city's vector package at zoom 15 (drawn on
 * canvas by protomaps-leaflet, overview under it), against the bundled overview alone, in the
 * same run: time from navigation to every tile of the view drawn, and to redraw after a pan.
 */
export async function benchBasemap(runs = 3, log: (s: string) => void = console.log): Promise<BasemapBenchResult> {
  const found = findChromium();
  if ('error' in found) throw new Error(found.error);
  ensureRenderer();
  const dir = mkdtempSync(join(tmpdir(), 'poi-basemap-bench-'));
  const file = prepareDataDir(dir);
  // The map shows a client application's POIs: one, with none yet.
  const seed = openCore({ file });
  seed.clients.create({ name: 'Bench' });
  seed.close();
  const browser = await chromium.launch({ executablePath: found.path, args: CHROMIUM_ARGS });
  // The sample city is imported on this first start.
  const running = await startBrowserMode({ file, port: 0, log: () => undefined });
  const times = { vector: { first: [] as number[], pan: [] as number[] }, overview: { first: [] as number[], pan: [] as number[] } };
  try {
    for (let run = 0; run < runs; run++) {
      for (const kind of ['vector', 'overview'] as const) {
        // A new page each time: nothing drawn yet, the vector renderer's chunk not loaded yet.
        const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
        await page.route(/^https?:\/\/(?!127\.0\.0\.1)/, (r) => r.abort());
        await page.goto(running.url);
        const ids = await page.evaluate(async () => {
          const token = sessionStorage.getItem('poi-admin.console-token');
          const r = await fetch('/console/api/maps.list', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: '{}' });
          return ((await r.json()) as { value: Array<{ id: string }> }).value.map((p) => p.id);
        });
        // Online tiles off (no network here); the package shown or hidden.
        await page.evaluate(([hidden]) => localStorage.setItem('poi-admin.map-layers', JSON.stringify({ online: false, overview: true, hidden })), [kind === 'vector' ? [] : ids] as const);
        const pane = kind === 'vector' ? '.leaflet-packages-pane' : '.leaflet-basemap-pane';
        await page.goto(`${running.url.replace(/#.*$/, '')}${START}`);
        await page.reload();
        times[kind].first.push(await timeUntilDrawn(page, pane));
        for (const view of PANS) times[kind].pan.push(await timeUntilDrawn(page, pane, view));
        await page.close();
      }
      log(`  run ${run + 1}: first drawn map at zoom 15, vector package ${times.vector.first.at(-1)!.toFixed(0)} ms, overview alone ${times.overview.first.at(-1)!.toFixed(0)} ms`);
    }
  } finally {
    await running.stop();
    await browser.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const result: BasemapBenchResult = {
    runs,
    vector: { firstDrawMs: median(times.vector.first), panMs: median(times.vector.pan) },
    overview: { firstDrawMs: median(times.overview.first), panMs: median(times.overview.pan) },
  };
  log(`basemap, offline at zoom 15 over the sample city (medians of ${runs} loads at zoom 15 and ${times.vector.pan.length} pans at zoom 16):   vector package   overview alone`);
  log(`  load to every tile of the view drawn   ${result.vector.firstDrawMs.toFixed(0).padStart(6)} ms   ${result.overview.firstDrawMs.toFixed(0).padStart(10)} ms`);
  log(`  redraw after a pan                     ${result.vector.panMs.toFixed(0).padStart(6)} ms   ${result.overview.panMs.toFixed(0).padStart(10)} ms`);
  return result;
}

/** The basemap's rows of `npm run bench`'s table. */
export function basemapRows(b: BasemapBenchResult | undefined): Row[] {
  if (!b) return [];
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  return [
    ['basemap: load to drawn map, vector package at z15 (Chromium, offline)', 'Playwright', ms(b.vector.firstDrawMs), '', '', `overview alone ${ms(b.overview.firstDrawMs)}`, `${(b.vector.firstDrawMs / b.overview.firstDrawMs).toFixed(1)}x the overview`, ''],
    ['basemap: redraw after a pan, vector package at z15', 'Playwright', ms(b.vector.panMs), '', '', `overview alone ${ms(b.overview.panMs)}`, `${(b.vector.panMs / b.overview.panMs).toFixed(1)}x the overview`, ''],
  ];
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await benchBasemap(Number(process.argv[2] ?? 3));
