import { createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { copyCounted } from '../jobs/copy-counted.js';
import { writeStreamClosed } from '../jobs/write-stream-closed.js';
import { once } from 'node:events';
import type { ExportReport } from '../../../shared/exports.js';
import { poisFileName, FILE_FORMATS, type ExportFormat, type ExportOptions } from '../../../shared/file-formats.js';
import type { ExportJob } from '../../../shared/jobs.js';
import type { PoiReply } from '../../../shared/wire.js';
import { isDiskFull, ServiceError } from '../errors.js';
import { writerOf } from '../formats/index.js';
import { cancelledOr, type JobOutcome } from '../jobs/jobs.js';
import { PRIVATE_FILE_MODE } from '../store/database-file.js';
import type { Services } from '../services.js';
import { pagesOf } from './poi-export.js';

/** How long an export's file waits in the data folder to be downloaded; older ones go when the next export starts, all when the app stops. */
const EXPORT_FILE_KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * The client's POIs as counted by the map's grid (every POI is in one cell of the coarsest
 * level): a sum over a few rows, where counting the POIs would read an index entry each.
 */
const countOf = (s: Pick<Services, 'db'>, clientId: string): number =>
  s.db
    .prepare<[string], number>('SELECT coalesce(sum(n), 0) FROM map_cells WHERE client = (SELECT rowid FROM clients WHERE id = ?) AND level = (SELECT min(level) FROM map_levels)')
    .pluck()
    .get(clientId) ?? 0;

/**
 * Moved where the save dialog chose: a rename, or on another file system a copy beside it then
 * renamed, so that the chosen file is the old one or the whole export, never half of it.
 */
async function moveTo(from: string, to: string, signal: AbortSignal): Promise<void> {
  try {
    renameSync(from, to);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const part = `${to}.${process.pid}.part`;
  try {
    await copyCounted(from, part, { signal, mode: 0o644 });
    renameSync(part, to);
  } finally {
    rmSync(part, { force: true });
    rmSync(from, { force: true });
  }
}

/**
 * A client's POIs written to a file as a job: page by page (one page in memory), its rows of the
 * client's count as progress, stopped by a Cancel with nothing left. The file is written in the
 * data folder's `exports/` (named with this process's pid: a crash's leftover is swept at the
 * next start); a download then fetches it (browser mode), or it is moved to the file the
 * desktop's save dialog chose, `saveTo`, only once complete.
 */
export function startExport(s: Services, clientId: string, format: ExportFormat, options: ExportOptions, saveTo?: string): ExportJob {
  const client = s.clients.summary(s.clients.requireId(clientId));
  // Its pages would be read partly from the data a restore replaces.
  if (s.backups.restoring) throw new ServiceError('STORAGE_BUSY', 'a backup is being restored: export once it is done');
  s.exportSpool.removeOlderThan(EXPORT_FILE_KEPT_MS, s.clock.now());
  const totalRows = countOf(s, clientId);
  const fileName = poisFileName(format, client.name, s.clock.now());
  return s.jobs.start({ kind: 'export', clientId, label: FILE_FORMATS[format].label, target: null, totalBytes: null, totalRows }, async (job): Promise<JobOutcome> => {
    const file = spooled(s, format, job.id);
    const out = createWriteStream(file, { mode: PRIVATE_FILE_MODE });
    let rows = 0;
    let bytes = 0;
    try {
      async function* counted(): AsyncGenerator<PoiReply[]> {
        for await (const page of pagesOf(s, clientId)) {
          if (job.signal.aborted) return;
          yield page;
          rows += page.length;
          job.progress({ rows });
        }
      }
      for await (const chunk of writerOf(format)(counted(), options)) {
        if (job.signal.aborted) break;
        bytes += Buffer.byteLength(chunk);
        job.progress({ bytes });
        if (!out.write(chunk)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'close');
      if (job.signal.aborted) {
        rmSync(file, { force: true });
        return { state: 'cancelled', report: null, error: null };
      }
      if (saveTo !== undefined) await moveTo(file, saveTo, job.signal);
      const report: ExportReport = { format, rows, bytes, fileName, savedTo: saveTo ?? null };
      return { state: 'done', report, error: null };
    } catch (error) {
      out.destroy();
      await writeStreamClosed(out);
      rmSync(file, { force: true });
      if (isDiskFull(error)) throw new ServiceError('STORAGE_FULL', 'the disk is full: the export was not finished. Free some space and export again', undefined, { cause: error });
      return cancelledOr(job, error);
    }
  });
}

/** Where an export job writes its file in the spool (named by the job, so its download finds it). */
const spooled = (s: Services, format: ExportFormat, jobId: string): string => s.exportSpool.path(`.${FILE_FORMATS[format].extensions[0]}`, jobId);

/** The finished file of an export job, for its download, with the format and name it is saved under: NOT_FOUND once swept. */
export function exportFileOf(s: Services, job: ExportJob): { file: string; format: ExportFormat; fileName: string } {
  if (job.state !== 'done' || job.report === null || job.report.savedTo !== null) throw new ServiceError('NOT_FOUND', `${job.id} is not a finished export to download`, 'jobId');
  const file = spooled(s, job.report.format, job.id);
  if (!statSync(file, { throwIfNoEntry: false })?.isFile()) throw new ServiceError('NOT_FOUND', 'this export’s file is no longer kept (it is kept a day, until the app stops): export again', 'jobId');
  return { file, format: job.report.format, fileName: job.report.fileName };
}
