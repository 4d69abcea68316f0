import { z } from 'zod';
import type { ErrorBody, OkBody } from './errors.js';
import { clientName, loginInput, pageInput, registerInput, updateMemberInput } from './schemas/members.js';
import { addPoiInput, categoryDescription, categoryId, lat, lng, poiId, updatePoiInput, whereInput } from './schemas/pois.js';
import { IMPORT_PARTS, type ActivityEntry } from './activity.js';
import type { CategoryReply, ChangeReply, ClientSummary, DuplicatePair, NewClient, PoiReply, PossibleDuplicate, UndoReply, UserReply, WarningReply } from './wire.js';
import { CHANGE_ACTORS } from './api/replies.js';
import type { ConflictView } from './sync-view.js';
import { tileImageSource } from './tiles.js';
import { exportChoice } from './file-formats.js';
import type { ExportJob, JobView, MapImportJob, RestoreJob } from './jobs.js';
import type { MapPackage } from './maps.js';
import { MAX_KEEP_DAILY, type BackupInfo, type BackupsView } from './backups.js';
import { corsOrigins } from './cors.js';
import { faultRules } from './faults.js';
import { locationSettings, type LocationStatus } from './location.js';
import type { ReplayResult, RequestDetail, RequestFeed } from './inspector.js';


/** An open report as the console lists it: with its reporter's username (null: the client's administrator; a deleted member's reports become theirs). */
export type OpenReport = WarningReply & { reporter: string | null };
/**
 * The one contract between the admin UI and the main process. Each operation is named once,
 * with the schema that validates its input wherever it enters the main process (IPC in
 * Electron, HTTP in browser mode) and the type of its output. Field names inside POI and member
 * inputs are the wire names of the API, so a refusal names the form field it concerns.
 *
 * The console acts for the operator of this computer, over every client application: it needs no
 * client token. What it may do is exactly this list.
 */

const guid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a client or member id');
const forClient = { clientId: guid };

/** What the activity list filters by. */
export const ACTIVITY_ENTITIES = ['poi', 'warning', 'category', 'member'] as const;

export const LISTENER_SCOPES = ['local', 'lan'] as const;
export type ListenerScope = (typeof LISTENER_SCOPES)[number];

export const DEFAULT_TILE_URL = 'https://tile.openstreetmap.org/{z}/{x}/{y}.png';
export const DEFAULT_TILE_ATTRIBUTION = '© OpenStreetMap contributors';
export const DEFAULT_TILE_ATTRIBUTION_URL = 'https://www.openstreetmap.org/copyright';

/** A tile URL template with {z}, {x} and {y}, on a tile server that shared/tiles.ts accepts. */
export const tileUrl = z
  .string()
  .max(500, 'must be at most 500 characters')
  .refine(
    (s) => tileImageSource(s) !== null && ['{z}', '{x}', '{y}'].every((p) => s.includes(p)),
    'must be a URL template with {z}, {x} and {y}: https, or http to localhost, a private network address (10.x, 172.16-31.x, 192.168.x) or a .local name',
  );

export const MAX_ATTRIBUTION = 200;

/** The online tiles kept for offline use, in megabytes of the data folder; 0 keeps none. */
export const DEFAULT_TILE_CACHE_MB = 500;
export const MAX_TILE_CACHE_MB = 100_000;

/**
 * The map's background: its tile server, and the credit the provider asks for, as plain text and
 * an optional link (the map builds the HTML, so a setting cannot put markup into the page).
 */
export const mapSettings = z.object({
  tileUrl,
  tileAttribution: z.string().max(MAX_ATTRIBUTION, `must be at most ${MAX_ATTRIBUTION} characters`),
  tileAttributionUrl: z
    .string()
    .max(500, 'must be at most 500 characters')
    .refine((s) => s === '' || /^https?:\/\/[^\s"'<>]+$/.test(s), 'must be an http or https address, or empty'),
  // Settings saved before the cache existed have none: they get the default.
  tileCacheMb: z
    .number()
    .int('must be a whole number of megabytes')
    .min(0, 'must be 0 (no cache) or more')
    .max(MAX_TILE_CACHE_MB, `must be at most ${MAX_TILE_CACHE_MB} MB`)
    .default(DEFAULT_TILE_CACHE_MB),
});

/** How many daily backups the data folder keeps; 0 takes none. */
export const backupSettings = z.object({
  keepDaily: z
    .number()
    .int('must be a whole number of backups')
    .min(0, 'must be 0 (no daily backups) or more')
    .max(MAX_KEEP_DAILY, `must be at most ${MAX_KEEP_DAILY}`),
});
export type BackupSettings = z.output<typeof backupSettings>;

/** A backup by the name the list gives: a file name in the data folder's backups/, never a path. */
const backupName = z.string().max(200, 'must be at most 200 characters').regex(/^poi-[a-z-]+-[0-9TZ-]+\.sqlite$/, 'must be the name of a backup from the list');

/** A box on the map, in degrees; `west` > `east` when it spans the antimeridian. */
const box = {
  south: z.number().min(-90).max(90),
  north: z.number().min(-90).max(90),
  west: z.number().min(-180).max(180),
  east: z.number().min(-180).max(180),
};

export const operations = {
  'clients.list': z.object({}),
  'clients.create': z.object({ name: clientName, implicitFlow: z.boolean().optional() }),
  'clients.setImplicitFlow': z.object({ ...forClient, enabled: z.boolean() }),
  'clients.rotateToken': z.object(forClient),

  'categories.list': z.object(forClient),
  'categories.add': z.object({ ...forClient, desc: categoryDescription }),
  'categories.update': z.object({ ...forClient, category: categoryId, desc: categoryDescription }),
  'categories.delete': z.object({ ...forClient, category: categoryId }),

  'pois.map': z.object({
    ...forClient,
    ...box,
    zoom: z.number().int().min(0).max(24),
    q: z.string().max(200).optional(),
    categories: z.array(categoryId).max(50).optional(),
  }),
  /** The largest places in a box (GeoNames cities, by population): the bundled map's place names. */
  'map.places': z.object({ ...box, limit: z.number().int().min(1).max(100) }),
  /** The offline map packages imported on this computer (imported by upload, dialog or CLI). */
  'maps.list': z.object({}),
  'maps.remove': z.object({ id: guid }),
  /**
   * Where the map opens when the address names no view: around the client's POIs when it has some,
   * else on the first map package (the sample city on a first start); null when neither.
   */
  'maps.startView': z.object({ clientId: guid.optional() }),
  /** Desktop app only: pick a package in the system's file dialog and import it (answered by the shell; null when cancelled). */
  'maps.importDialog': z.object({}),
  /** An opaque value that changes whenever what the map shows may have changed, from this process or another. */
  'pois.version': z.object({}),
  'pois.get': z.object({ ...forClient, poi: poiId }),
  'pois.add': z.object({ ...forClient, fields: addPoiInput }),
  'pois.update': z.object({ ...forClient, fields: updatePoiInput }),
  'pois.delete': z.object({ ...forClient, poi: poiId }),
  'pois.search': z.object({ ...forClient, filter: whereInput }),
  /** A page of a search, in id order, with how many match in all: a list says "1-50 of 401". */
  'pois.searchPage': z.object({
    ...forClient,
    q: z.string().max(200, 'must be at most 200 characters').optional(),
    categories: z.array(categoryId).max(50).optional(),
    after: poiId.optional(),
    limit: z.number().int().min(1).max(100),
  }),
  /**
   * The client's POIs within 50 m with a similar name, asked by the add and edit forms while the
   * user types (`except`: the POI being edited). A name still empty or only spaces finds none.
   */
  'pois.duplicates': z.object({ ...forClient, lat, lng, name: z.string().max(255, 'must be at most 255 characters'), except: poiId.optional() }),
  'warnings.list': z.object({ ...forClient, poi: poiId }),
  /** Every open report of the client's POIs, oldest first. */
  'warnings.open': z.object(forClient),
  /** Writes a WRONG_INFO or WRONG_INDICATOR report's proposal as an update of its POI, and closes the report. */
  'warnings.apply': z.object({ ...forClient, warning: z.number().int().positive() }),
  /** Closes a report, changing nothing else. */
  'warnings.dismiss': z.object({ ...forClient, warning: z.number().int().positive() }),
  'pois.history': z.object({ ...forClient, poi: poiId }),
  /** The client's possible duplicates two by two, a page at a time (`after`: the `next` of the previous page). */
  'pois.duplicatePairs': z.object({ ...forClient, after: z.number().int().nonnegative().optional() }),
  /** Keeps one POI, moves the other's open reports and history to it, and deletes the other. */
  'pois.merge': z.object({ ...forClient, keep: poiId, other: poiId }),
  /** The client's last changes, newest first, of one kind of actor and one entity when given; pages go back from `before` (a seq). An import is one entry, and so is its undo. */
  'changes.activity': z.object({
    ...forClient,
    actor: z.enum(CHANGE_ACTORS).optional(),
    entity: z.enum(ACTIVITY_ENTITIES).optional(),
    before: z.number().int().positive().optional(),
    limit: z.number().int().min(1, 'must be 1-200').max(200, 'must be 1-200').default(50),
  }),
  /** One import's changes (`part: 'undo'`: those that reversed them), newest first; pages go back from `before` (a seq). */
  'changes.ofImport': z.object({
    ...forClient,
    importId: z.string().min(1, 'must not be empty').max(100),
    part: z.enum(IMPORT_PARTS).default('import'),
    before: z.number().int().positive().optional(),
    limit: z.number().int().min(1, 'must be 1-200').max(200, 'must be 1-200').default(50),
  }),
  /** Reverses one change of a POI or of a report (an update, a delete, a create), unless it was changed since (CONFLICT). */
  'changes.undo': z.object({ ...forClient, seq: z.number().int().positive() }),
  /** Reverses every change of one import, all or none. */
  'imports.undo': z.object({ ...forClient, importId: z.string().min(1, 'must not be empty').max(100) }),
  /** Exports the client's POIs to a file in the data folder, as a job; browser mode then downloads it (POST /console/downloads {jobId}). A CSV for a spreadsheet unless `csvFlavour` says `plain`. */
  'exports.start': z.object({ ...forClient, ...exportChoice }),
  /** Desktop app only: the same, to a file chosen in the system's save dialog (answered by the shell with the job; null when cancelled). */
  'pois.exportDialog': z.object({ ...forClient, ...exportChoice }),
  /** Desktop app only: import POIs from a file chosen in the system's open dialog (answered by the shell; null when cancelled). */
  'pois.importDialog': z.object({
    ...forClient,
    dryRun: z.boolean().default(false),
    createCategories: z.boolean().default(false),
    addIdentical: z.boolean().default(false),
    /** The category, by name, of the rows that name none. */
    defaultCategory: z.string().max(100, 'must be at most 100 characters').optional(),
  }),
  /** Long work (imports, checks): the newest first, with their reports; of one client, or of all. */
  'jobs.list': z.object({ clientId: guid.optional() }),
  /** One job: how far it got, and its report once it has ended. */
  'jobs.get': z.object({ id: guid }),
  /** Stops a job; an import undoes what it wrote. A job already ended is left as it is. */
  'jobs.cancel': z.object({ id: guid }),

  /** This desktop's sync with a central store: where it is, what waits, and the last error. */
  'sync.status': z.object({}),
  /** The central's address and this desktop's device credential, checked with the central before they are kept. */
  'sync.configure': z.object({
    url: z.string().max(500, 'must be at most 500 characters').regex(/^https?:\/\/[^\s/]+(\/[^\s]*)?$/, 'must be an http or https address'),
    credential: z.string().regex(/^[0-9a-f-]{36}\.[A-Za-z0-9_-]{20,100}$/, 'must be a device credential: DEVICE_ID.SECRET, as central device add printed it'),
    /** Send the credential over plain http to another computer anyway (a network the person trusts). */
    insecureHttp: z.boolean().default(false),
  }),
  /** Syncs now (or waits for the sync under way), and answers the status after it. */
  'sync.now': z.object({}),
  'sync.conflicts': z.object({}),
  /**
   * Resolves a conflict on the central: keeping this desktop's side (`mine`), the other (`theirs`),
   * or a side by where it stands (`pushed`, `earlier`: when neither is this desktop's); a clash by
   * renaming one of its two rows, or merging them. Every desktop gets the outcome at its next sync.
   */
  'sync.resolve': z.union([
    z.object({ id: z.number().int().positive(), keep: z.enum(['mine', 'theirs', 'pushed', 'earlier']) }),
    z.object({ id: z.number().int().positive(), rename: z.object({ uuid: guid, to: z.string().min(1, 'must not be empty').max(300, 'must be at most 300 characters') }) }),
    z.object({ id: z.number().int().positive(), merge: z.object({ keep: guid, drop: guid }) }),
  ]),

  'members.list': z.object({ ...forClient, page: pageInput }),
  'members.register': z.object({ ...forClient, fields: registerInput }),
  'members.login': z.object({ ...forClient, fields: loginInput }),
  'members.logout': z.object({ token: z.string().min(1, 'must not be empty').max(100) }),
  'members.delete': z.object({ ...forClient, memberId: guid }),
  'members.update': z.object({ ...forClient, memberId: guid, fields: updateMemberInput }),

  'listener.status': z.object({}),
  'listener.configure': z.object({
    enabled: z.boolean(),
    port: z.number().int().min(1, 'must be 1-65535').max(65535, 'must be 1-65535'),
    scope: z.enum(LISTENER_SCOPES),
    corsOrigins: corsOrigins.optional(),
    /** Also over HTTPS on this port; null or absent: HTTP only. */
    httpsPort: z.number().int().min(1, 'must be 1-65535').max(65535, 'must be 1-65535').nullable().optional(),
    /** Fault rules on purpose (docs/devices.md#faults-on-purpose); absent: kept as saved. */
    faults: faultRules.optional(),
  }).refine((l) => l.httpsPort == null || l.httpsPort !== l.port, { message: 'must differ from the port of plain HTTP', path: ['httpsPort'] }),

  /** A new certificate authority for the data folder: every phone must install it again. */
  'listener.rotateAuthority': z.object({}),
  /** The listener's requests newer than `after`, newest first; when there are none, waits for the next (INSPECTOR_FOLLOW_MS at most). */
  'inspector.follow': z.object({ after: z.number().int().nonnegative().default(0) }),
  /** One request's headers and bodies, secrets masked. */
  'inspector.get': z.object({ id: z.number().int().positive() }),
  /** The curl command that sends the request again; secrets as `***` unless `withSecrets`. */
  'inspector.curl': z.object({ id: z.number().int().positive(), withSecrets: z.boolean().default(false) }),
  /** Sends the request again, secrets included, to the listener; the new entry is marked as its replay. */
  'inspector.replay': z.object({ id: z.number().int().positive() }),
  'inspector.clear': z.object({}),
  /** Writes the requests kept, masked, as JSON lines to a new file in the data folder's `requests/` (0600). */
  'inspector.save': z.object({}),
  /** Keeps requests, or stops keeping them (and forgets those kept). */
  'inspector.configure': z.object({ enabled: z.boolean() }),

  'settings.get': z.object({}),
  'settings.set': mapSettings,
  /** Where "Add at my position" takes its position from, and what a receiver read there says now. */
  'location.status': z.object({}),
  'location.configure': locationSettings,
  /** The online tiles kept for offline use: how many, how much, and the limit. */
  'tiles.cacheStatus': z.object({}),
  'tiles.clearCache': z.object({}),

  /** The backups in the data folder, newest first, and how many daily ones are kept. */
  'backups.list': z.object({}),
  /** Backs up now (SQLite's online backup: the service keeps answering). */
  'backups.create': z.object({}),
  /** Replaces the data with a backup's, after checking it and backing up the current state. */
  'backups.restore': z.object({ name: backupName }),
  'backups.remove': z.object({ name: backupName }),
  'backups.configure': backupSettings,

  /** Desktop app only: a link the user clicked opens in the system browser (answered by the shell). */
  'app.openExternal': z.object({ url: z.string().min(1, 'must not be empty').max(2048, 'must be at most 2048 characters') }),
} as const satisfies Record<string, z.ZodType>;

export type OpName = keyof typeof operations;

/**
 * The operations only the desktop shell answers (a link opened, the system's file dialogs), each
 * with what browser mode does instead: the one list the core's handlers, browser mode's
 * refusals and the shell's IPC derive from.
 */
export const SHELL_OPS = {
  // The refusal names the link: a form showing it would show the refusal there.
  'app.openExternal': { instead: 'a browser opens links itself', parameter: 'url' },
  'pois.importDialog': { instead: 'browser mode uploads the file (POST /console/imports)' },
  'pois.exportDialog': { instead: 'browser mode exports with exports.start, then downloads the file (POST /console/downloads)' },
  'maps.importDialog': { instead: 'browser mode uploads the file (POST /console/maps)' },
} as const satisfies Partial<Record<OpName, { instead: string; parameter?: string }>>;
export type ShellOp = keyof typeof SHELL_OPS;
export const isShellOp = (op: string): op is ShellOp => op in SHELL_OPS;

/** The operations a host answers rather than the core: its listener's, its sync client's, the shell's. */
export type HostOp = 'listener.status' | 'listener.configure' | 'listener.rotateAuthority' | `inspector.${string}` | `sync.${string}` | ShellOp;

export type Input<K extends OpName> = z.input<(typeof operations)[K]>;
export type ValidInput<K extends OpName> = z.output<(typeof operations)[K]>;

/** One cluster of POIs on the map, or one POI when `poi` is set (count 1). */
export interface MapPoint {
  lat: number;
  lng: number;
  count: number;
  /** The POI's id when the point is a single POI. */
  poi?: number;
  name?: string;
  /** The zoom at which a cluster breaks apart, for a click that zooms in. */
  expandZoom?: number;
}

/** A place to name on the bundled map. */
export interface PlaceLabel {
  name: string;
  lat: number;
  lng: number;
  population: number;
}

/** The most points one map view sends, whatever the zoom and the density: what a page draws without stalling. */
export const MAX_VIEW_POINTS = 2000;

export interface MapView {
  points: MapPoint[];
  /** POIs in the view in all (clusters counted by their members). */
  total: number;
}

export interface ListenerStatus {
  enabled: boolean;
  port: number;
  scope: ListenerScope;
  /** The HTTPS port beside the HTTP one; null (or absent) when HTTPS is off. */
  httpsPort?: number | null;
  state: 'stopped' | 'starting' | 'listening' | 'failed';
  /** Every http:// (and https://) address it can be reached at, when listening. */
  addresses: string[];
  error: string | null;
  /** False when the listener was started from the command line and the console may not change it. */
  configurable: boolean;
  /** Origins allowed to call the API from a browser (docs/devices.md#cors); none when absent. */
  corsOrigins?: string[];
  /** The fault rules in force, as written (docs/devices.md#faults-on-purpose); none when absent. */
  faults?: string[];
  /** The `.local` name announced on the local network (docs/devices.md#a-stable-name); absent when none is. */
  mdnsName?: string;
  /** The SHA-256 fingerprint of the data folder's certificate authority, to compare with what a phone shows; absent in memory. */
  caFingerprint?: string;
  /** False when no network interface carries the name (POI_MDNS_INTERFACES names none of this computer's). */
  mdnsAnnounced?: boolean;
  /** The path of the page for connecting a phone on each address (main/http/onboarding.ts). */
  pagePath?: string;
}

export type Settings = z.output<typeof mapSettings>;

export interface TileCacheStatus {
  tiles: number;
  bytes: number;
  limitBytes: number;
}

/** Where this desktop is with the central (the Sync panel and `sync status`). */
export interface SyncStatus {
  configured: boolean;
  url: string | null;
  clientId: string | null;
  lastSync: string | null;
  /** POIs, categories and members with changes not sent yet. */
  waiting: number;
  running: boolean;
  /** `total`: known for the pull (how many rows the central had waiting), not for the push. */
  progress: { step: string; done: number; total: number | null } | null;
  lastError: string | null;
  lastReport: { clientId: string; pushed: number; conflicts: number; pulled: number; refused: number; setAside: number; restored: boolean } | null;
  /** When the next automatic sync is due (null when none is planned). */
  nextAttempt: string | null;
  /** The credential goes over plain http to another computer (chosen with --insecure-http): shown as a danger. */
  insecureHttp: boolean;
  /** Rows the central sent that this desktop could not apply, with their reasons (the first 200), and how many in all. */
  setAside: SetAsideRow[];
  setAsideCount: number;
  /** This desktop's changes the central refused, with their reasons (the first 200), and how many in all. */
  refused: RefusedRow[];
  refusedCount: number;
}

/** A row a pull brought that this desktop could not apply, and why (kept, and tried again at every sync). */
export interface SetAsideRow {
  entity: string;
  uuid: string;
  label: string | null;
  reason: string;
  at: number;
}

/** A change of this desktop the central refused, and why. */
export interface RefusedRow {
  op: string;
  entity: string;
  uuid: string;
  status: number;
  field: string | null;
  message: string;
  at: number;
}

export interface Outputs {
  'clients.list': ClientSummary[];
  'clients.create': NewClient;
  'clients.setImplicitFlow': ClientSummary;
  'clients.rotateToken': { client_id: string; admin_token: string };
  'categories.list': CategoryReply[];
  'categories.add': CategoryReply;
  'categories.update': CategoryReply;
  'categories.delete': OkBody;
  'pois.map': MapView;
  'map.places': PlaceLabel[];
  'maps.list': MapPackage[];
  'maps.remove': OkBody;
  'maps.startView': { kind: 'place'; lat: number; lng: number; zoom: number } | { kind: 'bounds'; south: number; west: number; north: number; east: number } | null;
  /** The import's job, or null when the dialog was cancelled. */
  'maps.importDialog': MapImportJob | null;
  'pois.version': string;
  'pois.get': PoiReply;
  'pois.add': PoiReply;
  'pois.update': PoiReply;
  'pois.delete': OkBody;
  'pois.search': PoiReply[];
  'pois.searchPage': { total: number; pois: PoiReply[] };
  'pois.duplicates': PossibleDuplicate[];
  'warnings.list': WarningReply[];
  'warnings.open': OpenReport[];
  'warnings.apply': PoiReply;
  'warnings.dismiss': OkBody;
  'pois.history': ChangeReply[];
  'pois.duplicatePairs': { pairs: DuplicatePair[]; next: number | null };
  'pois.merge': PoiReply;
  'changes.activity': { entries: ActivityEntry[]; next: number | null };
  'changes.ofImport': { changes: ChangeReply[]; next: number | null };
  'changes.undo': UndoReply;
  'imports.undo': JobView;
  'exports.start': ExportJob;
  'pois.exportDialog': ExportJob | null;
  'pois.importDialog': JobView | null;
  'jobs.list': JobView[];
  'jobs.get': JobView;
  'jobs.cancel': JobView;
  'sync.status': SyncStatus;
  'sync.configure': SyncStatus;
  'sync.now': SyncStatus;
  'sync.conflicts': ConflictView[];
  'sync.resolve': SyncStatus;
  'members.list': UserReply[];
  'members.register': UserReply;
  'members.login': UserReply;
  'members.logout': OkBody;
  'members.delete': OkBody;
  'members.update': OkBody;
  'listener.status': ListenerStatus;
  'listener.configure': ListenerStatus;
  'listener.rotateAuthority': ListenerStatus;
  'inspector.follow': RequestFeed;
  'inspector.get': RequestDetail;
  'inspector.curl': { command: string };
  'inspector.replay': ReplayResult;
  'inspector.clear': RequestFeed;
  'inspector.save': { file: string; count: number };
  'inspector.configure': RequestFeed;
  'settings.get': Settings;
  'settings.set': Settings;
  'location.status': LocationStatus;
  'location.configure': LocationStatus;
  'tiles.cacheStatus': TileCacheStatus;
  'tiles.clearCache': TileCacheStatus;
  'backups.list': BackupsView;
  'backups.create': BackupInfo;
  /** The restore's job: its report says what was restored and the backup of the state it replaced. */
  'backups.restore': RestoreJob;
  'backups.remove': OkBody;
  'backups.configure': BackupsView;
  'app.openExternal': OkBody;
}
export type Output<K extends OpName> = Outputs[K];

/** Every answer, over IPC and over HTTP alike. */
export type Answer<T> = { ok: true; value: T } | { ok: false; error: ErrorBody };

/** What the preload exposes on `window.poiConsole`, and what the browser build implements over fetch. */
export interface ConsoleBridge {
  invoke<K extends OpName>(op: K, input: Input<K>): Promise<Answer<Output<K>>>;
}

export const isOpName = (name: string): name is OpName => Object.hasOwn(operations, name);

/** The name the preload exposes the bridge under, and the IPC channel it uses. */
export const BRIDGE_GLOBAL = 'poiConsole';
export const IPC_CHANNEL = 'console:invoke';
