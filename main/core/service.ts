import type { Access } from '../../shared/api/operations.js';
import type { SyncCore } from './sync/sync-parts.js';
import { resolveCaller, type CallerOf, type Credentials } from './api/caller.js';
import { apiHandlers, type ApiHandlers } from './api/handlers.js';
import { consoleHandlers, type CoreOp, type Handlers } from './console/handlers.js';
import { openServices, type CoreOptions, type Services } from './services.js';
import type { Readable } from 'node:stream';
import { exportPois, type ExportFormat, type ExportOptions } from './exports/poi-export.js';
import type { ImportFormat } from '../../shared/file-formats.js';
import { importPois, type ImportOptions, type ImportReport } from './imports/poi-import.js';
import { startImport, type ImportFile, type ImportJobOptions } from './imports/import-job.js';
import type { ExportJob, JobView, MapImportJob } from '../../shared/jobs.js';
import type { ClientSummary } from '../../shared/wire.js';
import type { Jobs } from './jobs/jobs.js';
import type { Backups } from './backups/backups.js';
import type { MapPackages } from './maps/packages.js';
import { startMapImport, type MapImportFile } from './maps/map-import-job.js';
import { exportFileOf, startExport } from './exports/export-job.js';
import { ServiceError } from './errors.js';
import type { OnlineTiles } from './tiles/online-tiles.js';
import type { SettingsStore } from './settings/settings.js';
import { warmUp } from './warm-up.js';
import { markClosedClean } from './store/clean-close.js';
import { isDatabaseFile } from './store/database-file.js';
import type { CoreEvents } from './events.js';
import type { ChangeReader } from './pois/change-feed.js';

export type { CoreOptions } from './services.js';

/**
 * The service core over one SQLite database, as transports (HTTP, IPC, CLI) see it: the
 * platform API's handler map, the console's, and the little a host needs besides. Its parts
 * (stores, rules, caches) stay inside.
 */
export interface Core {
  /** The platform's API (shared/api/operations.ts): one function per operation, given its caller and checked input. */
  api: ApiHandlers;
  /** The console's operations (shared/contract.ts) but the listener's, which its host handles. */
  console: Handlers<CoreOp>;
  /** Who is asking an operation of the API, checked against its access level. */
  resolveCaller<A extends Access>(access: A, creds: Credentials): CallerOf<A>;
  /** Runs synchronous reads in one read transaction (one read lock for a request's statements). */
  read<T>(work: () => T): T;
  /** Where long reads take turns, a piece at a time, whichever transport asked (heavy-lane.ts). */
  heavy: Services['heavy'];
  /** A new reader of which POIs changed, paced by the commit stamp (pois/change-feed.ts): read it outside a transaction. */
  poiChanges(): ChangeReader;
  /** What the core tells its host's log; it writes to no stream itself. */
  events: Pick<CoreEvents, 'on'>;
  /** The core's clock (tokens expire by it). */
  now(): number;
  /** The saved settings its host reads: the map's tile server (for the page's CSP), and the listener it owns (and its `.local` name). */
  settings: Pick<SettingsStore, 'map' | 'listener' | 'setListener' | 'localName'>;
  /** Offline map packages: import and remove (hosts: CLI, upload route, desktop dialog) and their tiles. */
  maps: Pick<MapPackages, 'importFile' | 'importSampleOnFirstStart' | 'uploadPath' | 'tile' | 'list'>;
  /** An export as a job, into the data folder or (the desktop's save dialog) to `saveTo`; its file for a download once done. */
  startExport(clientId: string, format: ExportFormat, options: ExportOptions, saveTo?: string): ExportJob;
  exportFileOf(jobId: string): ReturnType<typeof exportFileOf>;
  /** A package's import as a job (hosts: upload route, desktop dialog): answers at once; progress, cancel and the package through `jobs`. */
  startMapImport(file: MapImportFile): MapImportJob;
  /** A client's POIs in a format of shared/file-formats.ts, in chunks (NOT_FOUND for an unknown client, before the first chunk). */
  exportPois(clientId: string, format: ExportFormat, options?: ExportOptions): AsyncGenerator<string>;
  /** POIs from a CSV or GeoJSON stream into a client; bad rows refused one by one, with where and why. */
  importPois(clientId: string, source: Readable, format: ImportFormat, options?: ImportOptions): Promise<ImportReport>;
  /** The same as a job (hosts: upload route, desktop dialog, CLI): answers at once; progress, cancel and the report through `jobs`. */
  startImport(clientId: string, file: ImportFile, format: ImportFormat, options: ImportJobOptions): JobView;
  /** Where an upload is written before its import job reads it. */
  importUploadPath(): string;
  /** NOT_FOUND unless the client application exists (checked before an upload is received). */
  requireClient(clientId: string): ClientSummary;
  jobs: Pick<Jobs, 'get' | 'list' | 'cancel' | 'whenDone' | 'stopAll' | 'finishUncancellable'>;
  /** The online tile server's tiles through the data folder's cache. */
  onlineTiles: Pick<OnlineTiles, 'tile'>;
  /** Backups: the CLI's backup and restore of any file, and the hosts' daily timer. */
  backups: Pick<Backups, 'create' | 'restore' | 'list' | 'startDaily' | 'stopDaily'>;
  /** The desktop's side of sync with a central store, for the sync client (main/sync-client/). */
  syncSide: SyncCore;
  /** Work the first requests would otherwise wait for; failures only cost that head start. */
  warmUp(): Promise<void>;
  /** The data folder's certificate authority, for the listener's HTTPS (none for a database in memory). */
  tls: Services['tls'];
  close(): void;
}

/** The transports' view of assembled services (the core's tests hold both). */
export function coreOver(s: Services): Core {
  return {
    api: apiHandlers(s),
    console: consoleHandlers(s),
    resolveCaller: (access, creds) => resolveCaller(s.tokens, s.clients, access, creds),
    read: s.read,
    heavy: s.heavy,
    poiChanges: () => s.poiFeed.reader(() => s.stamp.read(), () => s.stamp.commits()),
    now: () => s.clock.now(),
    events: s.events,
    settings: s.settings,
    maps: s.maps,
    startMapImport: (file) => startMapImport(s, file),
    startExport: (clientId, format, options, saveTo) => startExport(s, clientId, format, options, saveTo),
    exportFileOf: (jobId) => {
      const job = s.jobs.get(jobId);
      if (job.kind !== 'export') throw new ServiceError('NOT_FOUND', `${jobId} is not an export`, 'jobId');
      return exportFileOf(s, job);
    },
    onlineTiles: s.onlineTiles,
    exportPois: (clientId, format, options) => exportPois(s, s.clients.requireId(clientId), format, options),
    importPois: (clientId, source, format, options) => importPois(s, clientId, source, format, options),
    startImport: (clientId, file, format, options) => startImport(s, clientId, file, format, options),
    importUploadPath: () => s.importSpool.path(),
    requireClient: (clientId) => s.clients.summary(s.clients.requireId(clientId)),
    jobs: s.jobs,
    backups: s.backups,
    syncSide: s,
    warmUp: () => warmUp(s),
    tls: s.tls,
    close: () => {
      // A job cut short here is found at the next start and undone (jobs.ts).
      s.jobs.abandon();
      s.importSpool.close();
      s.exportSpool.close();
      s.backups.stopDaily();
      s.location.close();
      s.maps.close();
      s.tileCache.close();
      s.db.close();
      s.stamp.close();
      if (isDatabaseFile(s.db.name)) markClosedClean(s.db.name);
    },
  };
}

export function createCore(options: CoreOptions): Core {
  return coreOver(openServices(options));
}
