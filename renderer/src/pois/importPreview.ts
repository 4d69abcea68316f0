import { parse } from 'csv-parse/browser/esm/sync';
import type { ExportFormat } from '../../../shared/exports';
import { mapHeader, targetOf, type Target } from '../../../shared/import-columns';

export interface Preview {
  format: ExportFormat;
  /** Each column and the field it feeds (undefined: ignored). */
  columns: Array<{ name: string; target: Target | undefined }>;
  rows: string[][];
}

const SAMPLE_BYTES = 64 * 1024;
const ROWS = 5;

export const formatOf = (file: File): ExportFormat | undefined => (/\.csv$/i.test(file.name) ? 'csv' : /\.(geo)?json$/i.test(file.name) ? 'geojson' : undefined);

/**
 * The first rows of a file and how its columns map, read in the page before anything is sent:
 * the same mapping the import applies (shared/import-columns.ts). A CSV is read from its first
 * 64 KiB; a GeoJSON file is parsed whole when small, else only named.
 */
export async function previewOf(file: File, format: ExportFormat): Promise<Preview> {
  if (format === 'csv') {
    const head = await file.slice(0, SAMPLE_BYTES).text();
    // The sample may end inside a record: the last, partial line is left out.
    const complete = head.length < file.size ? head.slice(0, head.lastIndexOf('\n') + 1) : head;
    const records = parse(complete, { bom: true, relax_column_count: true, skip_empty_lines: true, to: ROWS + 1 }) as string[][];
    const [header = [], ...rows] = records;
    const { mapping } = mapHeader(header);
    return { format, columns: header.map((name, i) => ({ name, target: mapping[i] })), rows };
  }
  if (file.size > 20 * 1024 * 1024) return { format, columns: [], rows: [] };
  const doc = JSON.parse(await file.text()) as { features?: Array<{ properties?: Record<string, unknown> }> };
  const features = (doc.features ?? []).slice(0, ROWS);
  const names = [...new Set(features.flatMap((f) => Object.keys(f.properties ?? {})))];
  return {
    format,
    columns: names.map((name) => ({ name, target: targetOf(name) })),
    rows: features.map((f) => names.map((n) => {
      const v = f.properties?.[n];
      return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    })),
  };
}
