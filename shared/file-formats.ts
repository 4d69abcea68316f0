import { z } from 'zod';

/**
 * The file formats a client's POIs are exported to and imported from, declared once. Every list
 * of formats elsewhere (the contract's and the routes' enums, the file dialogs' filters, the
 * CLI's `--format`, the page's file input and export buttons, a download's type and name) is
 * derived from this table, and the main process's reader and writer of each format are keyed by
 * its id (main/core/formats/index.ts, exhaustive): a format added here without them does not
 * compile, rather than being read as another format.
 */

export interface FileFormat {
  /** How people call it, in buttons and dialogs. */
  label: string;
  /** Lower-case, without the dot; the first is the one an export is saved with. */
  extensions: readonly [string, ...string[]];
  /** A download's content type. */
  mime: string;
  import: boolean;
  export: boolean;
  /** Whether its export is written for a spreadsheet or for a program (CSV_FLAVOURS). */
  flavoured: boolean;
}

/** In the order the UI offers them. */
export const FORMAT_IDS = ['csv', 'geojson'] as const;
export type FormatId = (typeof FORMAT_IDS)[number];

export const FILE_FORMATS = {
  csv: { label: 'CSV', extensions: ['csv'], mime: 'text/csv; charset=utf-8', import: true, export: true, flavoured: true },
  geojson: { label: 'GeoJSON', extensions: ['geojson', 'json'], mime: 'application/geo+json', import: true, export: true, flavoured: false },
} as const satisfies Record<FormatId, FileFormat>;

type Table = typeof FILE_FORMATS;
export type ExportFormat = { [K in FormatId]: Table[K]['export'] extends true ? K : never }[FormatId];
export type ImportFormat = { [K in FormatId]: Table[K]['import'] extends true ? K : never }[FormatId];

export const EXPORT_FORMATS: readonly ExportFormat[] = FORMAT_IDS.filter((id): id is ExportFormat => FILE_FORMATS[id].export);
export const IMPORT_FORMATS: readonly ImportFormat[] = FORMAT_IDS.filter((id): id is ImportFormat => FILE_FORMATS[id].import);

/**
 * The two ways a CSV is written. `spreadsheet` (the default) is for people: a byte-order mark so
 * that spreadsheet programs read UTF-8, and the formula guard (shared/csv-cells.ts),
 * which puts an apostrophe before a text a spreadsheet would run. `plain` is for programs: RFC
 * 4180 with no byte-order mark and every cell as it is, because the guard's apostrophe would be
 * data to a program.
 */
export const CSV_FLAVOURS = ['spreadsheet', 'plain'] as const;
export type CsvFlavour = (typeof CSV_FLAVOURS)[number];
export const CSV_FLAVOUR_LABELS = {
  spreadsheet: 'for a spreadsheet (formulas kept from running)',
  plain: 'for a program (every cell as it is)',
} as const satisfies Record<CsvFlavour, string>;

/** What an export may be asked besides its format; a format that is not `flavoured` ignores `csvFlavour`. */
export interface ExportOptions {
  csvFlavour?: CsvFlavour;
}

/** The formats whose export has a flavour. */
export const FLAVOURED_FORMATS: readonly ExportFormat[] = EXPORT_FORMATS.filter((id) => FILE_FORMATS[id].flavoured);

/** Words as a sentence lists choices: "a, b or c". */
const oneOf = (words: readonly string[]): string => (words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);

/** The names of some formats as a sentence says them: "CSV or GeoJSON". */
export const formatNames = (ids: readonly FormatId[]): string => oneOf(ids.map((id) => FILE_FORMATS[id].label));

/** Every extension of some formats, without dots, for a file dialog's filter. */
export const extensionsOf = (ids: readonly FormatId[]): string[] => ids.flatMap((id) => [...FILE_FORMATS[id].extensions]);

/** A file input's `accept`: ".csv,.geojson,.json". */
export const acceptOf = (ids: readonly FormatId[]): string => extensionsOf(ids).map((e) => `.${e}`).join(',');

/** The extensions as a sentence says them: ".csv, .geojson or .json". */
export const extensionNames = (ids: readonly FormatId[]): string => oneOf(extensionsOf(ids).map((e) => `.${e}`));

/** The format a file to import is in, by its name's extension; undefined when no format claims it. */
export function importFormatOf(fileName: string): ImportFormat | undefined {
  const dot = fileName.lastIndexOf('.');
  if (dot < 0) return undefined;
  const extension = fileName.slice(dot + 1).toLowerCase();
  return IMPORT_FORMATS.find((id) => FILE_FORMATS[id].extensions.some((e) => e === extension));
}

/** How many characters of a client's name an export's file name carries: the rest would only make it unwieldy. */
const NAME_IN_FILE_NAME = 60;

/**
 * A client's name as part of a file name on any system: letters and digits of every script kept
 * (composed, NFC), each run of anything else (separators, dots, spaces, `<>:"|?*`, controls)
 * one hyphen; cut to `NAME_IN_FILE_NAME` characters; `client` when nothing is left.
 */
export function fileNamePart(name: string): string {
  const safe = name.normalize('NFC').replace(/[^\p{L}\p{M}\p{N}]+/gu, '-').replace(/^-+|-+$/g, '');
  return [...safe].slice(0, NAME_IN_FILE_NAME).join('').replace(/-+$/, '') || 'client';
}

/** A file's name in a format: its stem and the format's first extension. */
export const exportFileName = (format: ExportFormat, stem: string): string => `${stem}.${FILE_FORMATS[format].extensions[0]}`;

/** The name a client's POIs are exported under: `pois-<client's name>-2026-11-27.csv`, the day (UTC) it was made. */
export const poisFileName = (format: ExportFormat, clientName: string, at: number): string =>
  exportFileName(format, `pois-${fileNamePart(clientName)}-${new Date(at).toISOString().slice(0, 10)}`);

/** What an import's report is downloaded as (renderer/src/pois/ImportFullReport.tsx): a CSV for a spreadsheet, as an export's. */
export const IMPORT_REPORT_FORMAT = 'csv' satisfies ExportFormat;

/** An export's choices as the console's operations and routes take them (shared/contract.ts, main/http/download-routes.ts). */
export const exportChoice = {
  format: z.enum(EXPORT_FORMATS),
  /** CSV only; a spreadsheet's unless asked. */
  csvFlavour: z.enum(CSV_FLAVOURS).default('spreadsheet'),
};
