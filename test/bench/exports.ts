import { Readable } from 'node:stream';
import { EXPORT_FORMATS, type ExportFormat } from '../../shared/exports.js';
import { testCore } from '../support/core.js';
import { fillPois } from './fill.js';
import type { Row } from './table.js';

export interface ExportBenchResult {
  pois: number;
  formats: Record<ExportFormat, { ms: number; poisPerSecond: number; megabytes: number; heapGrowthMiB: number }>;
  /** The CSV export imported into a new client: rows per second, every row checked by add.json's rules. */
  importCsv: { ms: number; rowsPerSecond: number; added: number };
}

/**
 * Exports of a client's POIs through the core's export (the one the CLI, the download and the
 * desktop dialog use), written nowhere: the rate, the size, and how much the heap grew while it
 * ran (the export holds one page of POIs at a time).
 */
export async function benchExports(count = 100_000, log: (s: string) => void = console.log): Promise<ExportBenchResult> {
  const core = testCore();
  try {
    const { clientId } = fillPois(core, count);
    const formats = {} as ExportBenchResult['formats'];
    let csv = '';
    for (const format of EXPORT_FORMATS) {
      globalThis.gc?.();
      const heapBefore = process.memoryUsage().heapUsed;
      let peak = heapBefore;
      let bytes = 0;
      const t0 = performance.now();
      for await (const chunk of core.exportPois(clientId, format)) {
        bytes += Buffer.byteLength(chunk);
        if (format === 'csv') csv += chunk;
        peak = Math.max(peak, process.memoryUsage().heapUsed);
      }
      const ms = performance.now() - t0;
      formats[format] = { ms, poisPerSecond: (count / ms) * 1000, megabytes: bytes / 1e6, heapGrowthMiB: (peak - heapBefore) / 2 ** 20 };
      log(`export ${format}, ${count.toLocaleString('en')} POIs: ${ms.toFixed(0)} ms (${formats[format].poisPerSecond.toFixed(0)} POIs/s), ${formats[format].megabytes.toFixed(1)} MB, heap grew ${formats[format].heapGrowthMiB.toFixed(0)} MiB at most, garbage included`);
    }
    const target = core.clients.create({ name: 'imported' }).client_id;
    const t0 = performance.now();
    const report = await core.importPois(target, Readable.from([Buffer.from(csv)]), 'csv');
    const ms = performance.now() - t0;
    const importCsv = { ms, rowsPerSecond: (report.rows / ms) * 1000, added: report.added };
    log(`import csv, ${count.toLocaleString('en')} rows into a new client: ${ms.toFixed(0)} ms (${importCsv.rowsPerSecond.toFixed(0)} rows/s), ${report.added.toLocaleString('en')} added, ${report.refused.length} refused`);
    return { pois: count, formats, importCsv };
  } finally {
    core.close();
  }
}

export function exportRows(e: ExportBenchResult | undefined): Row[] {
  if (!e) return [];
  const imported: Row = [`import csv, ${e.pois.toLocaleString('en')} rows (core, in-process, in-memory database, batches of 1,000)`, 'timed', `${e.importCsv.rowsPerSecond.toFixed(0)} rows/s`, `${e.importCsv.ms.toFixed(0)} ms`, '', `${e.importCsv.added.toLocaleString('en')} added`, '', ''];
  return [...EXPORT_FORMATS.map((format): Row => {
    const f = e.formats[format];
    return [`export ${format}, ${e.pois.toLocaleString('en')} POIs (core, in-process)`, 'timed', `${f.poisPerSecond.toFixed(0)} POIs/s`, `${f.ms.toFixed(0)} ms`, '', `${f.megabytes.toFixed(1)} MB written`, `heap +${f.heapGrowthMiB.toFixed(0)} MiB at most`, ''];
  }), imported];
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await benchExports(Number(process.argv[2] ?? 100_000));
