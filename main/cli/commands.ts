import { EXPORT_FORMATS, IMPORT_FORMATS } from '../../shared/file-formats.js';
import { CONFLICT_POLICIES } from '../../shared/sync.js';
import { DEFAULT_TIMEOUT_MS } from '../core/geocode/nominatim.js';
import { describeLimits } from './rate-limits.js';
import { LOG_FORMATS } from '../app/host-log.js';
import { FAULT_SYNTAX } from '../../shared/faults.js';

/**
 * The command line, declared once: every flag and every command. The rest derives from these two
 * tables: parseArgs's options (main/cli.ts passes FLAGS itself), the type of the parsed flags
 * (CliOptions), the dispatch on a command's first word (main/cli.ts, one handler per word), the
 * --help text (HELP), and the command reference in docs/cli.md (main/build/docs.ts writes it;
 * test/docs-generated.test.ts fails when the page is stale, or when a usage line names other
 * flags than its command's list).
 */

/**
 * One flag. parseArgs reads its `type`, `multiple` and `short` and ignores keys it does not know,
 * so this table is its options object as it stands, and the values it parses are typed from the
 * same literal.
 */
type Flag =
  | {
      type: 'string';
      /** How usage lines write its value: `--data DIR`. */
      value: string;
      /** Repeatable; its values come as an array. */
      multiple?: true;
      /** One line of plain text, for --help and the reference page. */
      description: string;
    }
  | { type: 'boolean'; short?: string; description: string };

export const FLAGS = {
  data: { type: 'string', value: 'DIR', description: 'The data folder; by default $POI_DATA_DIR, else the per-user application-data folder. Created on first use.' },
  port: { type: 'string', value: 'N', description: 'The port to listen on (serve: 8080, central serve: 8443; 0 takes any free port).' },
  'https-port': {
    type: 'string',
    value: 'N',
    description: "Also serve over HTTPS on this port (0 takes any free port), with a certificate from the data folder's own authority (see devices.md).",
  },
  host: { type: 'string', value: 'ADDR', description: 'The address to listen on (127.0.0.1, this computer only; 0.0.0.0 for the local network too).' },
  'rate-limit': {
    type: 'string',
    value: 'NAME=POINTS/SECONDS',
    multiple: true,
    description: `One of the API's rate limits: POINTS events per SECONDS; repeatable. Defaults: ${describeLimits({})}.`,
  },
  'nominatim-url': { type: 'string', value: 'URL', description: 'Turns on online geocoding by a server speaking the Nominatim reverse API, besides the offline one.' },
  'geocode-timeout': { type: 'string', value: 'MS', description: `The longest wait for the online geocoder, in milliseconds (default ${DEFAULT_TIMEOUT_MS}).` },
  'log-format': {
    type: 'string',
    value: LOG_FORMATS.join('|'),
    description: `How the log is written: ${LOG_FORMATS.join(' or ')} (default pretty: lines a person reads; json: one JSON object per line, for a log collector, never a secret in it).`,
  },
  'no-reply-cache': { type: 'boolean', description: "Answers every get.json from the database, without the listener's memo and the cache of whole replies." },
  'no-mdns': { type: 'boolean', description: "With --host 0.0.0.0: does not announce the listener's .local name on the local network (see devices.md)." },
  'no-inspector': { type: 'boolean', description: "Keeps no requests for the admin UI's request inspector." },
  cors: {
    type: 'string',
    value: 'ORIGIN',
    multiple: true,
    description: 'An origin whose web pages may call the API from a browser (CORS), such as http://localhost:5173, or * for any; repeatable. Default: none.',
  },
  fault: {
    type: 'string',
    value: 'RULE',
    multiple: true,
    description: `A fault on purpose, to test an app's error paths: ${FAULT_SYNTAX}; repeatable. Default: none.`,
  },
  name: { type: 'string', value: 'NAME', description: 'The name of the client application, the device or the map package.' },
  'implicit-flow': { type: 'boolean', description: 'Allows registration with the api_key alone.' },
  client: { type: 'string', value: 'ID', description: 'The client application, by its client_id (its api_key).' },
  on: { type: 'boolean', description: 'Turns Implicit Flow on.' },
  off: { type: 'boolean', description: 'Turns Implicit Flow off.' },
  format: { type: 'string', value: 'FORMAT', description: "The file's format, one of those its command's usage lists; an import takes it from the file's extension unless given." },
  plain: { type: 'boolean', description: 'Exports a CSV for programs (RFC 4180, every cell as it is) rather than for a spreadsheet (with a formula guard).' },
  out: { type: 'string', value: 'FILE', description: "The file to write, mode 0600: an export's instead of stdout; a backup's instead of the backups/ folder, and it must not exist yet." },
  geocode: { type: 'boolean', description: "Fills each imported row's empty address fields from its position (one geocoder call per row)." },
  'dry-run': { type: 'boolean', description: 'Checks every row and writes nothing.' },
  'create-categories': { type: 'boolean', description: 'Creates the categories the file names that the client does not have (else their rows are refused).' },
  'add-identical': { type: 'boolean', description: 'Adds rows identical to a POI already there, rather than skipping them.' },
  category: { type: 'string', value: 'NAME', description: 'The category, by name, of the rows that name none (else they are refused); with --create-categories it is created when the client does not have it.' },
  postgres: { type: 'string', value: 'URL', description: "The central store's PostgreSQL database (postgres://user@host:port/database)." },
  'allow-plain-http': { type: 'boolean', description: 'Answers plain HTTP from other computers too (put TLS in front instead).' },
  'client-name': { type: 'string', value: 'NAME', description: "The client application's name on the central, when it is new there (default: the device's --name)." },
  policy: { type: 'string', value: 'POLICY', description: `A conflict policy: ${CONFLICT_POLICIES.join(' or ')}.` },
  url: { type: 'string', value: 'URL', description: "The central's address, kept in the data folder for the next syncs." },
  credential: {
    type: 'string',
    value: 'DEVICE_ID.SECRET',
    description: 'The device credential central device add printed, kept in sync-target.json (mode 0600); $POI_SYNC_CREDENTIAL overrides it and is never written.',
  },
  'insecure-http': { type: 'boolean', description: 'Allows a plain http:// central on another computer.' },
  mine: { type: 'boolean', description: "Resolves a conflict with this desktop's side." },
  theirs: { type: 'boolean', description: "Resolves a conflict with the other side's." },
  pushed: { type: 'boolean', description: "Resolves a conflict with the side pushed last, when neither side is this desktop's." },
  earlier: { type: 'boolean', description: "Resolves a conflict with the central's side from before that push, when neither side is this desktop's." },
  value: { type: 'string', value: 'JSON', description: 'Resolves a conflict with this value, as JSON.' },
  rename: { type: 'string', value: 'UUID=VALUE', description: 'Resolves a clash by giving the row UUID a new username, e-mail or name.' },
  merge: { type: 'string', value: 'KEEP,DROP', description: 'Resolves a clash by merging the row DROP into the row KEEP (by their UUIDs).' },
  help: { type: 'boolean', short: 'h', description: 'Prints the commands and the flags.' },
} as const satisfies Record<string, Flag>;

type Flags = typeof FLAGS;
export type FlagName = keyof Flags;

/** What parseArgs gives for a flag of the table, when it is given. */
type ValueOf<F extends Flag> = F extends { type: 'boolean' } ? boolean : F extends { multiple: true } ? string[] : string;

/** The parsed flags; main/cli.ts checks that parseArgs's own typing of FLAGS agrees. */
export type CliOptions = { [K in FlagName]?: ValueOf<Flags[K]> | undefined };

/** One command. */
interface Command {
  /** The words that choose it; the first one picks its handler in main/cli.ts. */
  command: string;
  /** What follows them: placeholders in capitals, optional parts in brackets, alternatives split by |. */
  args: string;
  /** The flags it reads: exactly those `args` names. */
  flags: readonly FlagName[];
  /** One line of plain text, for --help. */
  summary: string;
  /** Markdown sentences for the reference page, whose links are relative to docs/. */
  description: readonly string[];
}

/** In the reference page's order. */
export const COMMANDS = [
  {
    command: 'serve',
    args: '[--data DIR] [--port N] [--https-port N] [--host ADDR] [--rate-limit NAME=POINTS/SECONDS ...] [--nominatim-url URL] [--geocode-timeout MS] [--no-reply-cache] [--no-mdns] [--no-inspector] [--log-format pretty|json] [--cors ORIGIN ...] [--fault RULE ...]',
    flags: ['data', 'port', 'https-port', 'host', 'rate-limit', 'nominatim-url', 'geocode-timeout', 'no-reply-cache', 'no-mdns', 'no-inspector', 'log-format', 'cors', 'fault'],
    summary: 'Serves the API and the admin UI on one listener, until Ctrl-C',
    description: [
      "Serves the API (default port 8080, host 127.0.0.1) and the admin UI on the same listener, at the `Admin UI: http://.../#token=...` address it prints (the data folder's console token).",
      'Builds the admin UI first when it is missing or older than its sources, as `npm start` does, and loads the offline geocoder before it listens (about half a second; it prints `Offline geocoder: 135,233 places, loaded in ... ms`), so that its first requests do not wait for it (`npm start` in browser mode does the same).',
      "`--https-port N` serves the same routes over HTTPS too, with a certificate for every address of this computer signed by the data folder's certificate authority; a phone trusts it once it has installed that authority from the listener's `/connect` page (see [Connect a phone](devices.md#connect-a-phone)).",
      "With `--host 0.0.0.0` it announces its `.local` name on the local network by mDNS (`_http._tcp`, `_https._tcp`), so that a device can reach it as `https://NAME.local:PORT/` whatever its address; `--no-mdns` turns that off (see [A stable name](devices.md#a-stable-name)).",
      '`--nominatim-url` turns on online geocoding (see [Geocoding](api.md#geocoding)).',
      "`--no-reply-cache` answers every `get.json` from the database rather than from the listener's memo of repeated requests and the cache of whole replies (see [Performance](performance.md); the bench measures both).",
      'Logs one line per request (method, path, status, time; never the query string, where tokens travel); a client that hung up before its answer is logged with status 499, as nginx does (a write it sent is still made).',
      '`--log-format json` writes every line as a JSON object, for a log collector: the admin UI address is then given without its token (read it from the data folder\'s `console-token` file). A request\'s line carries `time` (when it was answered), `address`, `scheme`, `method`, `path`, `operation`, `status`, `ms` and `caller` (`client`, `member` or `anonymous`), the fields of the request inspector\'s list; never a query string nor a body.',
      'The admin UI\'s Requests panel shows the API\'s last requests as they come, with their bodies, secrets masked (see [Request inspector](devices.md#request-inspector)); `--no-inspector` keeps none.',
      'Stopping, or switching the listener off, closes at once the connections that never sent a byte (browsers open them ahead of need).',
      'Stops cleanly on Ctrl-C / SIGTERM.',
      '`--fault RULE` slows down, fails or drops requests on purpose, for one operation (named by its path: `pois/get`) or all (`*`): `--fault "*:latency=200-800ms"`, `--fault "pois/get:status=503@10%"`, `--fault "users/login:drop@5%"`; each touched reply carries `X-Fault-Injected: <rule>` (see [Faults on purpose](devices.md#faults-on-purpose)).',
      '`--cors ORIGIN` lets web pages of that origin call the `/1/` API from a browser (see [CORS](devices.md#cors)); `*` allows any, with a warning.',
    ],
  },
  {
    command: 'client add',
    args: '--name NAME [--implicit-flow] [--data DIR]',
    flags: ['name', 'implicit-flow', 'data'],
    summary: 'Creates a client application and prints its admin token, shown only here',
    description: [
      'Creates a client application and prints `{"client_id", "name", "implicit_flow", "admin_token"}`.',
      'The `client_id` is the `api_key`.',
      '**The admin token is shown only here**: only its hash is stored.',
      'A name another client application already has (case, accents and spacing folded) is refused, exit code 1.',
    ],
  },
  {
    command: 'client list',
    args: '[--data DIR]',
    flags: ['data'],
    summary: 'Lists the client applications, without secrets',
    description: ['Prints the client applications as a JSON array, without secrets.'],
  },
  {
    command: 'client rotate-token',
    args: '--client ID [--data DIR]',
    flags: ['client', 'data'],
    summary: "Revokes a client application's admin token and prints a new one",
    description: ['Revokes the administrator token and prints a new one (`{"client_id", "admin_token"}`).'],
  },
  {
    command: 'client implicit-flow',
    args: '--client ID --on|--off [--data DIR]',
    flags: ['client', 'on', 'off', 'data'],
    summary: 'Allows or forbids registration with the api_key alone',
    description: ['Allows or forbids registration with the `api_key` alone.'],
  },
  {
    command: 'pois export',
    args: `--client ID --format ${EXPORT_FORMATS.join('|')} [--plain] [--out FILE] [--data DIR]`,
    flags: ['client', 'format', 'plain', 'out', 'data'],
    summary: "Exports a client's POIs to FILE or stdout (--plain: a CSV for programs, else for a spreadsheet)",
    description: [
      "Exports the client's POIs (see [Export all POIs](admin-guide.md#the-admin-ui)) to FILE (mode 0600) or to stdout, streamed; `--plain` writes a CSV for programs rather than for a spreadsheet.",
      'An unknown client is refused before any file is created.',
    ],
  },
  {
    command: 'pois import',
    args: `FILE --client ID [--format ${IMPORT_FORMATS.join('|')}] [--geocode] [--dry-run] [--create-categories] [--category NAME] [--add-identical] [--data DIR]`,
    flags: ['client', 'format', 'geocode', 'dry-run', 'create-categories', 'category', 'add-identical', 'data'],
    summary: 'Imports POIs as a job (Ctrl-C cancels it and undoes what it wrote) and prints its report',
    description: [
      'Imports POIs (see [Import POIs](imports.md)) as a job: its progress on a terminal, Ctrl-C cancels it and undoes what it wrote.',
      'The format comes from the extension unless given.',
      'Prints the report as JSON: `importId` (for `undo import`), `rows`, `added`, `updated`, `refused` (each `{where, name, reason}`), `refusedGroups` (each cause once, `{reason, count}`), `ignoredColumns`, `createdCategories`, `possibleDuplicates` and `duplicateCount`, `identical` and `identicalCount` (rows skipped as already there), `failed`, `cancelled`, `undone`.',
      'Then, on stderr, what it did in words (a `--dry-run` in the conditional: "2 would be added") and each cause of refusal once with its count.',
      'Exit code 1 when a row was refused, 2 when the import was cancelled or failed (nothing was changed).',
      '`--dry-run` checks every row and writes nothing; `--geocode` fills empty address fields from each position (one geocoder call per row: slow); `--add-identical` adds rows identical to a POI already there; `--category NAME` puts the rows that name no category in that one (a category the client does not have is refused before the file is read, unless `--create-categories`).',
    ],
  },
  {
    command: 'undo change',
    args: 'SEQ --client ID [--data DIR]',
    flags: ['client', 'data'],
    summary: 'Undoes one change of a POI or of a report, by its seq',
    description: [
      "Undoes one change of a POI or of a report, by its `seq` (in the POI's history, the activity list, or the `changes` table); prints `{\"undone\", \"poi\"}`.",
      'Refused (exit code 1, the reason on stderr) when what it wrote was changed since (see [Undo](admin-guide.md#the-admin-ui)).',
    ],
  },
  {
    command: 'undo import',
    args: 'IMPORT_ID --client ID [--data DIR]',
    flags: ['client', 'data'],
    summary: 'Undoes every change of one import, all or none',
    description: ['Undoes every change of one import (its report\'s `importId`), all or none; prints `{"undone": N, "poi": null}`.'],
  },
  {
    command: 'central init',
    args: '--postgres URL',
    flags: ['postgres'],
    summary: 'Creates or upgrades the central store (PostgreSQL with PostGIS)',
    description: [
      "Creates or upgrades the central store's schema in PostgreSQL (PostGIS included; see [Several computers](field-guide.md#several-computers-sync-with-a-central-postgresql)) and prints `{\"from\", \"to\", \"applied\"}`.",
      'A database of a newer schema is refused.',
    ],
  },
  {
    command: 'central serve',
    args: '--postgres URL [--port N] [--host ADDR] [--allow-plain-http] [--log-format pretty|json]',
    flags: ['postgres', 'port', 'host', 'allow-plain-http', 'log-format'],
    summary: 'Runs the sync service, until Ctrl-C',
    description: [
      'Starts the sync service (default 127.0.0.1:8443), logging JSON lines on stdout (`--log-format pretty` for lines a person reads).',
      "Refuses a database not at this build's schema.",
      'Plain HTTP from other computers is refused unless `--allow-plain-http`: put TLS in front ([docs/central.md](central.md)).',
    ],
  },
  {
    command: 'central device add',
    args: '--name NAME --client ID [--client-name NAME] --postgres URL',
    flags: ['name', 'client', 'client-name', 'postgres'],
    summary: 'Issues a device credential for a client application, shown only here',
    description: ['Issues a device credential for a client application (shown once) and prints `{"device_id", "client_id", "name", "credential"}`.'],
  },
  {
    command: 'central device list|revoke',
    args: '[DEVICE_ID] --postgres URL',
    flags: ['postgres'],
    summary: 'Lists the devices, or revokes one',
    description: ['Lists the devices (never their secrets), or revokes one.'],
  },
  {
    command: 'central policy',
    args: `--client ID --policy ${CONFLICT_POLICIES.join('|')} --postgres URL`,
    flags: ['client', 'policy', 'postgres'],
    summary: "Sets a client application's conflict policy",
    description: ["Sets a client application's conflict policy."],
  },
  {
    command: 'sync',
    args: '[--url URL --credential DEVICE_ID.SECRET [--insecure-http]] [--data DIR]',
    flags: ['url', 'credential', 'insecure-http', 'data'],
    summary: 'Syncs this data folder with the central: push, then pull',
    description: [
      'Syncs this data folder with the central (push, then pull) and prints `{"clientId", "device", "pushed", "conflicts", "pulled", "refused", "setAside", "restored"}`; progress on stderr.',
      "The first time, give the central's address and the device credential (kept in `sync-target.json`, 0600); plain `http://` to another computer is refused unless `--insecure-http`.",
      'Exit code 1 with the reason when the central cannot be reached or refuses; nothing is lost, the next sync carries on.',
    ],
  },
  {
    command: 'sync status',
    args: '[--data DIR]',
    flags: ['data'],
    summary: 'Shows the central, the last sync, the rows waiting, and those set aside or refused',
    description: [
      "Prints the central's address, the client application, the last sync, how many rows have changes waiting, the rows received and set aside (with their reasons) and this desktop's changes the central refused (with theirs).",
    ],
  },
  {
    command: 'sync conflicts',
    args: '[--data DIR]',
    flags: ['data'],
    summary: "Lists the central's open conflicts of this client application",
    description: [
      "Prints the central's open conflicts of this client application, each with its kind (`field`, `delete`, `clash`), its values and `sides` named from this desktop's point of view.",
    ],
  },
  {
    command: 'sync resolve',
    args: 'ID --mine|--theirs|--pushed|--earlier|--value JSON|--rename UUID=VALUE|--merge KEEP,DROP [--data DIR]',
    flags: ['mine', 'theirs', 'pushed', 'earlier', 'value', 'rename', 'merge', 'data'],
    summary: 'Resolves a conflict on the central (a clash by --rename or --merge), then syncs',
    description: [
      "Resolves a conflict on the central (`--mine`: this desktop's side; a clash by a rename or a merge), then syncs; every desktop gets the outcome at its next sync ([docs/sync.md](sync.md)).",
    ],
  },
  {
    command: 'maps import',
    args: 'FILE [--name NAME] [--data DIR]',
    flags: ['name', 'data'],
    summary: 'Imports an offline map package (an .mbtiles or .pmtiles file)',
    description: [
      'Imports an offline map package (`.mbtiles` or `.pmtiles`) into the data folder and prints its description (id, name, kind, format, zooms, bounds, credit).',
      'A broken or unsupported file is refused with the reason, exit code 1, and nothing kept.',
      'A running app lists it at its next look at the Map layers panel.',
    ],
  },
  {
    command: 'maps list',
    args: '[--data DIR]',
    flags: ['data'],
    summary: 'Lists the imported map packages',
    description: ['Prints the imported map packages as a JSON array.'],
  },
  {
    command: 'maps remove',
    args: 'ID [--data DIR]',
    flags: ['data'],
    summary: 'Removes a map package and its file',
    description: ['Removes a map package and its file.'],
  },
  {
    command: 'backup',
    args: '[--out FILE] [--data DIR]',
    flags: ['out', 'data'],
    summary: "Backs up the database, while it may be in use, into the folder's backups/ or to FILE",
    description: [
      "Backs up the database while it may be in use (SQLite's online backup) into the data folder's `backups/`, or to `FILE`, which must not exist yet (mode 0600), and prints `{\"name\", \"kind\", \"takenAt\", \"bytes\", \"path\"}`.",
    ],
  },
  {
    command: 'backups list',
    args: '[--data DIR]',
    flags: ['data'],
    summary: "Lists the backups in the folder's backups/, newest first",
    description: ["Prints the backups in the data folder's `backups/` as a JSON array, newest first."],
  },
  {
    command: 'restore',
    args: 'FILE|NAME [--data DIR]',
    flags: ['data'],
    summary: "Replaces the data with a backup's: a file, or the NAME of one in the folder's backups/",
    description: [
      "Replaces the data with a backup's: a file anywhere, or the `NAME` of one in `backups/`.",
      'Checks it first (see [Where data lives](data-folder.md#where-data-lives); a refused file changes nothing, exit code 1), backs up the current data, then copies it in, in one transaction, and prints `{"restored", "saved"}`.',
      'Safe while the app runs on the same folder.',
    ],
  },
  {
    command: 'console rotate-token',
    args: '[--data DIR]',
    flags: ['data'],
    summary: "Replaces the folder's console token; running consoles refuse the old one at once",
    description: [
      "Replaces the folder's console token and prints the admin UI's address with the new one.",
      'Running consoles (`npm start`, `serve`) refuse the old token at once; their open tabs ask for the new one without losing a form.',
    ],
  },
  {
    command: 'ca show',
    args: '[--data DIR]',
    flags: ['data'],
    summary: "Prints the folder's certificate authority: its file, SHA-256 fingerprint and end",
    description: [
      'Prints `{"certificate", "sha256", "notAfter"}` of the certificate authority that signs the listener\'s HTTPS certificate, making it on first use (see [Connect a phone](devices.md#connect-a-phone)).',
      'The fingerprint is what a phone shows when the certificate is installed: compare them.',
    ],
  },
  {
    command: 'ca rotate',
    args: '[--data DIR]',
    flags: ['data'],
    summary: 'Replaces the certificate authority with a new one; phones must install it again',
    description: [
      'Makes a new certificate authority (new key) in place of the old, for a key that may have leaked, and prints it as `ca show` does.',
      'Phones that trusted the old one must install the new one (`/ca.pem`); a running listener serves a certificate signed by the new one after its next certificate check.',
    ],
  },
] as const satisfies readonly Command[];

type FirstWord<S extends string> = S extends `${infer W} ${string}` ? W : S;
/** A command's first word: what main/cli.ts dispatches on. */
export type CommandGroup = FirstWord<(typeof COMMANDS)[number]['command']>;

/** A command's usage line, after `npm run cli --`. */
export const usageOf = (c: Command): string => `${c.command} ${c.args}`.trimEnd();

/** A flag as the list of flags shows it: `--data DIR`, `--rate-limit NAME=POINTS/SECONDS ...`, `--help, -h`. */
export function flagUsage(name: string, flag: Flag): string {
  if (flag.type === 'boolean') return `--${name}${flag.short ? `, -${flag.short}` : ''}`;
  return `--${name} ${flag.value}${flag.multiple ? ' ...' : ''}`;
}

/** The flags in the table's order, each with its name. */
export const flagList = (): Array<{ name: string; flag: Flag }> => Object.entries(FLAGS).map(([name, flag]) => ({ name, flag }));

/** What --help prints: each command's usage and summary, then each flag. */
export const HELP = [
  'Usage: npm run cli -- COMMAND ...   (npm run -s cli -- ... for scripts that read the JSON it prints)',
  '',
  'Commands:',
  ...COMMANDS.flatMap((c) => [`  ${usageOf(c)}`, `      ${c.summary}`]),
  '',
  'Flags:',
  ...flagList().flatMap(({ name, flag }) => [`  ${flagUsage(name, flag)}`, `      ${flag.description}`]),
  '',
  'The reference, with what each command prints: docs/cli.md',
].join('\n');
