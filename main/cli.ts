import { parseArgs } from 'node:util';
import { runBackup, runBackupsCommand, runRestore } from './cli/backup-commands.js';
import { runClientCommand } from './cli/client-commands.js';
import { runConsoleCommand } from './cli/console-commands.js';
import { runMapCommand } from './cli/map-commands.js';
import { runPoiCommand } from './cli/poi-commands.js';
import { runUndoCommand } from './cli/undo-commands.js';
import { runCentralCommand } from './cli/central-commands.js';
import { runSyncCommand } from './cli/sync-commands.js';
import { runServe } from './cli/serve.js';
import { EXPORT_FORMATS, IMPORT_FORMATS } from '../shared/file-formats.js';

const USAGE = `Usage:
  npm run cli -- serve [--data DIR] [--port N] [--host ADDR] [--rate-limit NAME=POINTS/SECONDS ...]
                       [--nominatim-url URL] [--geocode-timeout MS] [--no-reply-cache]
  npm run cli -- client add --name NAME [--implicit-flow] [--data DIR]
  npm run cli -- client list [--data DIR]
  npm run cli -- client rotate-token --client CLIENT_ID [--data DIR]
  npm run cli -- client implicit-flow --client CLIENT_ID --on|--off [--data DIR]
  npm run cli -- console rotate-token [--data DIR]
  npm run cli -- pois export --client CLIENT_ID --format ${EXPORT_FORMATS.join('|')} [--plain] [--out FILE] [--data DIR]
                             (--plain: a CSV for programs, RFC 4180 with no formula guard; else for a spreadsheet)
  npm run cli -- pois import FILE --client CLIENT_ID [--format ${IMPORT_FORMATS.join('|')}] [--geocode] [--dry-run] [--create-categories] [--add-identical] [--data DIR]
  npm run cli -- undo change SEQ --client CLIENT_ID [--data DIR]        (a change of a POI or a report, by its seq)
  npm run cli -- undo import IMPORT_ID --client CLIENT_ID [--data DIR]  (every change of one import)
  npm run cli -- central init --postgres URL   (creates or upgrades the central store: PostgreSQL with PostGIS)
  npm run cli -- central serve --postgres URL [--port N] [--host ADDR] [--allow-plain-http]
  npm run cli -- central device add --name NAME --client CLIENT_ID [--client-name NAME] --postgres URL
  npm run cli -- central device list|revoke [DEVICE_ID] --postgres URL
  npm run cli -- central policy --client CLIENT_ID --policy last-writer-wins|manual --postgres URL
  npm run cli -- sync [--url URL --credential DEVICE_ID.SECRET [--insecure-http]] [--data DIR]   (push, then pull)
  npm run cli -- sync status|conflicts [--data DIR]
  npm run cli -- sync resolve ID --mine|--theirs|--pushed|--earlier|--value JSON [--data DIR]
  npm run cli -- sync resolve ID --rename UUID=NEW_VALUE | --merge KEEP_UUID,DROP_UUID [--data DIR]   (a clash)
  npm run cli -- maps import FILE [--name NAME] [--data DIR]   (an .mbtiles or .pmtiles file)
  npm run cli -- maps list [--data DIR]
  npm run cli -- maps remove ID [--data DIR]
  npm run cli -- backup [--out FILE] [--data DIR]
  npm run cli -- backups list [--data DIR]
  npm run cli -- restore FILE|NAME [--data DIR]   (a file, or the NAME of one in the folder's backups/)

DIR defaults to $POI_DATA_DIR, else the per-user application-data folder.`;

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      data: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      name: { type: 'string' },
      out: { type: 'string' },
      client: { type: 'string' },
      'implicit-flow': { type: 'boolean' },
      on: { type: 'boolean' },
      off: { type: 'boolean' },
      'rate-limit': { type: 'string', multiple: true },
      'nominatim-url': { type: 'string' },
      'geocode-timeout': { type: 'string' },
      'no-reply-cache': { type: 'boolean' },
      format: { type: 'string' },
      geocode: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      'create-categories': { type: 'boolean' },
      'add-identical': { type: 'boolean' },
      plain: { type: 'boolean' },
      postgres: { type: 'string' },
      url: { type: 'string' },
      credential: { type: 'string' },
      mine: { type: 'boolean' },
      theirs: { type: 'boolean' },
      value: { type: 'string' },
      pushed: { type: 'boolean' },
      earlier: { type: 'boolean' },
      rename: { type: 'string' },
      merge: { type: 'string' },
      'insecure-http': { type: 'boolean' },
      policy: { type: 'string' },
      'allow-plain-http': { type: 'boolean' },
      'client-name': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, sub] = positionals;
  if (values.help || command === undefined) {
    console.log(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }
  if (command === 'serve') return runServe(values);
  if (command === 'client') return runClientCommand(sub, values);
  if (command === 'console') return runConsoleCommand(sub, values);
  if (command === 'pois') return runPoiCommand(sub, positionals.slice(2), values);
  if (command === 'central') return runCentralCommand(sub, positionals.slice(2), values);
  if (command === 'sync') return runSyncCommand(sub, positionals.slice(2), values);
  if (command === 'undo') return runUndoCommand(sub, positionals.slice(2), values);
  if (command === 'backup') return runBackup(values);
  if (command === 'backups') return runBackupsCommand(sub, values);
  if (command === 'restore') return runRestore(sub, values);
  if (command === 'maps') return runMapCommand(sub, positionals.slice(2), values);
  console.error(`Unknown command: ${command}\n\n${USAGE}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
