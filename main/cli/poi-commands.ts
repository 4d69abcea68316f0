import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { exportStream } from '../core/exports/poi-export.js';
import { EXPORT_FORMATS, FILE_FORMATS, FLAVOURED_FORMATS, IMPORT_FORMATS, importFormatOf, type ExportFormat, type ImportFormat } from '../../shared/file-formats.js';
import { isImportJob, type JobView } from '../../shared/jobs.js';
import { importSummary } from '../../shared/import-words.js';
import { createCore } from '../core/service.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';

const isExportFormat = (f: string | undefined): f is ExportFormat => EXPORT_FORMATS.some((known) => known === f);
const isImportFormat = (f: string | undefined): f is ImportFormat => IMPORT_FORMATS.some((known) => known === f);

/**
 * `pois export --client ID --format F [--plain] [--out FILE]`: a client's POIs, streamed to the
 * file (or stdout) page by page, so any number of POIs exports in bounded memory. `--plain`
 * writes a CSV for programs (shared/file-formats.ts, CSV_FLAVOURS).
 */
export async function runPoiCommand(sub: string | undefined, args: string[], options: CliOptions): Promise<number> {
  if (sub === 'import') return runImport(args, options);
  if (sub !== 'export') throw new Error(`unknown pois command ${sub ?? '(none)'}; use export or import`);
  if (!options.client) throw new Error('pois export needs --client CLIENT_ID');
  if (!isExportFormat(options.format)) throw new Error(`pois export needs --format ${EXPORT_FORMATS.join(' or ')}`);
  if (options.plain && !FILE_FORMATS[options.format].flavoured) throw new Error(`--plain is for --format ${FLAVOURED_FORMATS.join(' or ')}: a ${FILE_FORMATS[options.format].label} file has no formula guard to leave out`);
  const core = createCore({ file: databasePath(options).file });
  try {
    // Started before the file is created: an unknown client leaves no empty file.
    const stream = await exportStream(core.exportPois(options.client, options.format, { csvFlavour: options.plain ? 'plain' : 'spreadsheet' }));
    await pipeline(stream, options.out ? createWriteStream(options.out, { mode: 0o600 }) : process.stdout);
    if (options.out) console.error(`Exported to ${options.out}`);
    return 0;
  } finally {
    core.close();
  }
}

/** The format of a file to import: --format, else its extension. */
function formatOf(file: string, given: string | undefined): ImportFormat {
  const guess = given ?? importFormatOf(file);
  if (!isImportFormat(guess)) throw new Error(`cannot tell the format of ${file}: give --format ${IMPORT_FORMATS.join(' or ')}`);
  return guess;
}

/**
 * `pois import FILE --client ID [--format F] [--geocode] [--dry-run] [--create-categories] [--category NAME] [--add-identical]`:
 * rows checked by add.json's rules, bad ones listed with their line and reason, the report as JSON
 * on stdout, and in words on stderr (shared/import-words.ts).
 * The import runs as the app's do, as a job: its progress on a terminal, Ctrl-C cancels it (what
 * it wrote is undone). Exit code 0 when every row went in, 1 when some were refused, 2 when it
 * was cancelled or stopped before the file's end (nothing was changed).
 */
async function runImport(args: string[], options: CliOptions): Promise<number> {
  const [file] = args;
  if (file === undefined) throw new Error('pois import needs the FILE to import');
  if (!options.client) throw new Error('pois import needs --client CLIENT_ID');
  const format = formatOf(file, options.format);
  const core = createCore({ file: databasePath(options).file });
  const job = core.startImport(options.client, { path: file, name: basename(file), temporary: false }, format, {
    dryRun: options['dry-run'] === true,
    geocode: options.geocode === true,
    createCategories: options['create-categories'] === true,
    defaultCategory: options.category,
    addIdentical: options['add-identical'] === true,
  });
  const cancel = (): void => {
    process.stderr.write('\nCancelling: undoing what was written…\n');
    core.jobs.cancel(job.id);
  };
  process.once('SIGINT', cancel);
  const shown = process.stderr.isTTY ? setInterval(() => process.stderr.write(`\r${progressLine(core.jobs.get(job.id))}`), 250) : undefined;
  try {
    const ended = await core.jobs.whenDone(job.id);
    if (!isImportJob(ended)) throw new Error(`job ${job.id} is not an import`);
    if (shown) process.stderr.write(`\r${progressLine(ended)}\n`);
    if (ended.report) {
      console.log(JSON.stringify(ended.report, null, 2));
      // The JSON is for programs; a person reads what happened here, in the words the app uses.
      console.error(importSummary(ended.report));
      for (const group of ended.report.refusedGroups ?? []) console.error(`  ${group.count === 1 ? `${ended.report.refused.find((r) => r.reason === group.reason)?.where ?? '1 row'}: ` : ''}${group.reason}`);
    }
    if (ended.state !== 'done') {
      console.error(ended.error ?? `The import was ${ended.state}${ended.report?.undone ? ': what it wrote was undone, nothing was changed' : ''}.`);
      return 2;
    }
    return ended.report?.refusedCount === 0 ? 0 : 1;
  } finally {
    clearInterval(shown);
    process.off('SIGINT', cancel);
    core.close();
  }
}

function progressLine(job: JobView): string {
  const { rows, bytes, totalBytes } = job.progress;
  const share = totalBytes ? ` (${Math.floor((100 * bytes) / Math.max(totalBytes, 1))} %)` : '';
  return `${rows.toLocaleString('en')} rows read${share}`;
}
