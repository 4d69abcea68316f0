import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { MapImportJob } from '../../../shared/jobs.js';
import { ServiceError } from '../errors.js';
import { cancelledOr, type JobOutcome } from '../jobs/jobs.js';
import type { Services } from '../services.js';
import type { ImportOptions } from './packages.js';

/** A package file to import, and what to call it (packages.ts ImportOptions). */
export type MapImportFile = { path: string } & Pick<ImportOptions, 'name' | 'move' | 'fileName'>;

/**
 * The import of an offline map package as a job: answers at once; the file is read and checked
 * (in a side process, killed when late), then copied, its bytes as progress; Cancel stops it at
 * any step before the package is listed, and nothing of it is kept.
 */
export function startMapImport(s: Services, file: MapImportFile): MapImportJob {
  if (!statSync(file.path, { throwIfNoEntry: false })?.isFile()) throw new ServiceError('NOT_FOUND', `no file at ${file.path}`, 'file');
  const label = basename(file.fileName ?? file.path);
  return s.jobs.start({ kind: 'map-import', clientId: null, label, target: null, totalBytes: statSync(file.path).size }, async (job): Promise<JobOutcome> => {
    try {
      const pkg = await s.maps.importFile(file.path, { ...file, signal: job.signal, progress: job.progress });
      return { state: 'done', report: pkg, error: null };
    } catch (error) {
      return cancelledOr(job, error);
    }
  });
}
