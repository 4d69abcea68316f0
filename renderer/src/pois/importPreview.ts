import { parse } from 'csv-parse/browser/esm/sync';
import { acceptOf, IMPORT_FORMATS, importFormatOf, type ImportFormat } from '../../../shared/file-formats';
import { isFormulaGuardColumn, mapHeader, targetOf, type Target } from '../../../shared/import-columns';

export interface Preview {
  format: ImportFormat;
  /** Each column and the field it feeds (undefined: ignored). */
  columns: Array<{ name: string; target: Target | undefined }>;
  rows: string[][];
}

const SAMPLE_BYTES = 64 * 1024;
const ROWS = 5;

/** The file input's `accept`: every extension a format to import claims. */
export const IMPORT_ACCEPT = acceptOf(IMPORT_FORMATS);

export const formatOf = (file: File): ImportFormat | undefined => importFormatOf(file.name);

/**
 * A CSV's first rows, from its first 64 KiB. The column that marks a spreadsheet's CSV feeds no
 * field and is not reported as ignored: it is left out.
 */
async function previewCsv(file: File): Promise<Omit<Preview, 'format'>> {
  const head = await file.slice(0, SAMPLE_BYTES).text();
  // The sample may end inside a record: the last, partial line is left out.
  const complete = head.length < file.size ? head.slice(0, head.lastIndexOf('\n') + 1) : head;
  const records = parse(complete, { bom: true, relax_column_count: true, skip_empty_lines: true, to: ROWS + 1 }) as string[][];
  const [header = [], ...rows] = records;
  const { mapping } = mapHeader(header);
  const shown = header.flatMap((name, i) => (isFormulaGuardColumn(name) ? [] : [i]));
  return { columns: shown.map((i) => ({ name: header[i]!, target: mapping[i] })), rows: rows.map((row) => shown.map((i) => row[i] ?? '')) };
}

/** A GeoJSON file's first features' properties, when the file is small enough to parse whole. */
async function previewGeojson(file: File): Promise<Omit<Preview, 'format'>> {
  if (file.size > 20 * 1024 * 1024) return { columns: [], rows: [] };
  const doc = JSON.parse(await file.text()) as { features?: Array<{ properties?: Record<string, unknown> }> };
  const features = (doc.features ?? []).slice(0, ROWS);
  const names = [...new Set(features.flatMap((f) => Object.keys(f.properties ?? {})))];
  return {
    columns: names.map((name) => ({ name, target: targetOf(name) })),
    rows: features.map((f) => names.map((n) => {
      const v = f.properties?.[n];
      return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    })),
  };
}

/** Each format's preview: a format to import without one does not compile. */
const PREVIEWS = { csv: previewCsv, geojson: previewGeojson } satisfies Record<ImportFormat, (file: File) => Promise<Omit<Preview, 'format'>>>;

/**
 * The first rows of a file and how its columns map, read in the page before anything is sent:
 * the same mapping the import applies (shared/import-columns.ts).
 */
export async function previewOf(file: File, format: ImportFormat): Promise<Preview> {
  return { format, ...(await PREVIEWS[format](file)) };
}
