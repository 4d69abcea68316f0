import { dirname, join } from 'node:path';
import { AbuseGuard, DEFAULT_LIMITS, type AbuseLimits } from './members/abuse.js';
import { Backups } from './backups/backups.js';
import { Categories } from './categories/categories.js';
import { ChangeLog } from './changes/change-log.js';
import { GeocodedFields } from './changes/geocoded-fields.js';
import { Undo } from './changes/undo.js';
import { Merges } from './pois/merge.js';
import { syncParts, type SyncParts } from './sync/sync-parts.js';
import { Clients } from './clients/clients.js';
import { systemClock, type Clock } from './clock.js';
import { createGeocoder, type Geocoder, type GeocoderOptions } from './geocode/index.js';
import { MapPackages } from './maps/packages.js';
import { TileCacheStore } from './tiles/cache-store.js';
import { OnlineTiles } from './tiles/online-tiles.js';
import { Members } from './members/members.js';
import { argon2Hasher, type PasswordHasher } from './members/passwords.js';
import { DataWatch } from './pois/data-watch.js';
import { ReplyCache } from './pois/reply-cache.js';
import { ChangeFeed } from './pois/change-feed.js';
import { MapViews } from './pois/map-view.js';
import { PoiStore } from './pois/poi-store.js';
import { Pois } from './pois/pois.js';
import { PoiQueries } from './pois/queries.js';
import { WarningStore } from './warnings/warnings.js';
import { SettingsStore } from './settings/settings.js';
import { openDatabase, openSideConnection, type Database } from './store/database.js';
import { Location } from './location/location.js';
import { WritePath } from './store/write-path.js';
import { CommitStamp } from './store/commit-stamp.js';
import { isDatabaseFile } from './store/database-file.js';
import { HeavyLane } from './heavy-lane.js';
import { REPLY_PIECE, SCAN_SLICE, type Slicing } from './pois/sliced-scan.js';
import { Tokens } from './tokens/tokens.js';
import { Jobs } from './jobs/jobs.js';
import { DATA_JOB_KINDS, describeJob } from '../../shared/jobs.js';
import { Spool } from './jobs/spool.js';
import { CoreEvents } from './events.js';
import type { SideLauncher } from './jobs/side-process.js';
import { recoverJob } from './jobs/recover.js';
import { LocalAuthority } from './tls/authority.js';

export interface CoreOptions {
  /** A database file path, or ':memory:'. */
  file: string;
  clock?: Clock;
  limits?: Partial<AbuseLimits>;
  passwords?: PasswordHasher;
  /** A ready geocoder (tests), else one built from `geocoding`. */
  geocoder?: Geocoder;
  geocoding?: GeocoderOptions;
  nativeBinding?: string;
  /** Where offline map packages live; by default `maps/` beside the database file (none in memory). */
  mapsDir?: string;
  /** Whole POI replies kept for get.json (reply-cache.ts); on unless false (the bench measures both). */
  replyCache?: boolean;
  /** Ids per slice of a text search, list or map (sliced-scan.ts); tests make it small to see slices on a few POIs. */
  scanSlice?: number;
  /** POIs per piece of a long reply (sliced-scan.ts); tests make it small, as scanSlice. */
  replyPiece?: number;
  /** How side processes are started (jobs/side-process.ts): Node's fork unless the host gives another (the packaged desktop). */
  sideLauncher?: SideLauncher;
  /** Where the local certificate authority lives (tls/authority.ts); by default `tls/` beside the database file (none in memory). */
  tlsDir?: string;
}

/**
 * The core's parts over one SQLite database, as its features compose them. Only the core (its
 * handler maps, its warm-up) and the core's own tests reach them: transports see `Core`.
 */
export interface Services {
  db: Database;
  /** What the core tells its host's log (events.ts). */
  events: CoreEvents;
  clock: Clock;
  clients: Clients;
  members: Members;
  tokens: Tokens;
  categories: Categories;
  pois: Pois;
  queries: PoiQueries;
  /** The POIs' SQL (reads that need no rules). */
  store: PoiStore;
  /** The map's views of a client's POIs (clusters from the grid the database keeps). */
  mapViews: MapViews;
  /** Whether the data may have changed, from this process or another on the same file. */
  watch: DataWatch;
  /** Whole POI replies for get.json, kept fresh by the change log. */
  replyCache: ReplyCache;
  /** Which POIs changed since a cache last looked, from the change log (pois/change-feed.ts). */
  poiFeed: ChangeFeed;
  /** Where long reads take turns, a piece at a time (heavy-lane.ts). */
  heavy: Pick<HeavyLane, 'run'>;
  /** Differs whenever anything has been committed since, by any process (store/commit-stamp.ts). */
  stamp: CommitStamp;
  warnings: WarningStore;
  settings: SettingsStore;
  /** Where "Add at my position" takes its position from; a GNSS receiver read over TCP. */
  location: Location;
  geocoder: Geocoder;
  changes: ChangeLog;
  undo: Undo;
  merges: Merges;
  /** The desktop's side of sync with a central store. */
  sync: SyncParts;
  /** The one write path (group commit, change log's actor). */
  writes: WritePath;
  /** Another connection to the database file, for a long writer (store/long-write.ts); none for a database in memory. */
  sideConnection: (() => Database) | undefined;
  abuse: AbuseGuard;
  /** Offline map packages: files in the data folder, outside the database. */
  maps: MapPackages;
  /** The online tile server's tiles, kept in the data folder for offline use. */
  onlineTiles: OnlineTiles;
  tileCache: TileCacheStore;
  /** Backups of the database in the data folder's backups/, and restores. */
  backups: Backups;
  /** Long work (imports) as jobs: progress, cancel, reports kept (jobs/jobs.ts). */
  jobs: Jobs;
  /** Where uploads wait for their import job. */
  importSpool: Spool;
  /** Exports waiting to be downloaded (browser mode). */
  exportSpool: Spool;
  /**
   * Runs synchronous reads in one read transaction. In WAL mode each statement outside a
   * transaction takes and drops the read lock on its own; one request's handful of statements
   * take it once.
   */
  read<T>(work: () => T): T;
  /** The data folder's certificate authority for the listener's HTTPS; none for a database in memory. */
  tls: LocalAuthority | undefined;
}

export function openServices(options: CoreOptions): Services {
  const clock = options.clock ?? systemClock;
  const db = openDatabase(options.file, {
    now: () => clock.now(),
    ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}),
  });
  const writes = new WritePath(db, () => clock.now());
  const stamp = new CommitStamp(db, options.file);
  const tokens = new Tokens(db, writes, clock, stamp);
  const clients = new Clients(db, writes, clock, tokens);
  const members = new Members(db, writes, clock, tokens, options.passwords ?? argon2Hasher());
  const abuse = new AbuseGuard(db, writes, clock, { ...DEFAULT_LIMITS, ...options.limits });
  const categories = new Categories(db, writes, clock);
  const warnings = new WarningStore(db, writes, clock, categories);
  const store = new PoiStore(db);
  const onDisk = isDatabaseFile(options.file);
  const maps = new MapPackages(
    options.mapsDir ?? (onDisk ? join(dirname(options.file), 'maps') : undefined),
    () => clock.now(),
    { nativeBinding: options.nativeBinding, launcher: options.sideLauncher },
  );
  // Streets from the packages as they are listed at each lookup (imported and removed at run time).
  const geocoder = options.geocoder ?? createGeocoder(options.geocoding, maps);
  const poiFeed = new ChangeFeed(db);
  // Read inside get.json's read transaction: the statement's stamp is that transaction's snapshot.
  const replyCache = new ReplyCache(poiFeed.reader(() => stamp.counted(), () => stamp.commits()), options.replyCache ?? true);
  // Where geocoded fields came from: written with a POI's change, read with its history.
  const geocoded = new GeocodedFields(db);
  const pois = new Pois(writes, clock, store, categories, warnings, geocoder, replyCache, geocoded);
  // One lane for the heavy work of every transport (heavy-lane.ts), and the slices that take turns in it.
  const slicing: Slicing = { size: options.scanSlice ?? SCAN_SLICE, lane: new HeavyLane() };
  const queries = new PoiQueries(store, pois, slicing, options.replyPiece ?? REPLY_PIECE);
  const changes = new ChangeLog(db, geocoded);
  const readTx = db.transaction((work: () => unknown) => work());
  const settings = new SettingsStore(db, writes);
  const tlsDir = options.tlsDir ?? (onDisk ? join(dirname(options.file), 'tls') : undefined);
  const tileCache = new TileCacheStore(onDisk ? join(dirname(options.file), 'tile-cache.sqlite') : ':memory:', options.nativeBinding);
  const watch = new DataWatch(db);
  const events = new CoreEvents();
  const jobs = new Jobs(db, writes, clock, events);
  // The jobs a process died in (at start), or a restored backup brought back as running (after a restore).
  const recoverJobs = (): void => void jobs.recoverInterrupted((job, cause) => recoverJob(services, job, cause));
  const backups = new Backups({
    db,
    events,
    file: onDisk ? options.file : undefined,
    clock,
    nativeBinding: options.nativeBinding,
    launcher: options.sideLauncher,
    keepDaily: () => settings.backups().keepDaily,
    // What this process remembers of the data it replaced. The token cache follows PRAGMA
    // data_version, which the restore's own connection moves.
    forget: () => {
      watch.forget();
      poiFeed.forget();
      // A backup made while an import ran brings that import back half done: undone as a crash's.
      recoverJobs();
    },
    pauseOtherWriters: () => writes.pauseLongWriters(),
    busy: () => {
      const job = jobs.runningFor({ kinds: DATA_JOB_KINDS });
      return job && `${describeJob(job)} is running: wait for it to end, or cancel it`;
    },
  });
  const sideConnection = onDisk ? () => openSideConnection(options.file, options.nativeBinding) : undefined;
  const services: Services = {
    db,
    clock,
    events,
    backups,
    jobs,
    importSpool: new Spool(onDisk ? join(dirname(options.file), 'imports') : undefined, 'upload'),
    exportSpool: new Spool(onDisk ? join(dirname(options.file), 'exports') : undefined, 'export'),
    clients,
    members,
    tokens,
    categories,
    pois,
    queries,
    store,
    mapViews: new MapViews(db, store, slicing),
    heavy: slicing.lane,
    watch,
    replyCache,
    poiFeed,
    stamp,
    warnings,
    settings,
    location: new Location(settings, () => clock.now()),
    tileCache,
    onlineTiles: new OnlineTiles(tileCache, () => settings.map(), () => clock.now()),
    geocoder,
    changes,
    undo: new Undo(db, writes, clock, store, warnings, categories),
    merges: new Merges(db, writes, clock, store, pois),
    sync: syncParts(db, writes, clock, store, sideConnection),
    writes,
    sideConnection,
    abuse,
    maps,
    read: <T>(work: () => T): T => readTx.deferred(work) as T,
    tls: tlsDir === undefined ? undefined : new LocalAuthority(tlsDir, () => clock.now()),
  };
  // An import the app died in is undone before anything else reads the data.
  recoverJobs();
  return services;
}
