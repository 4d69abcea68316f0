import { parseArgs } from 'node:util';
import { runBackup, runBackupsCommand, runRestore } from './cli/backup-commands.js';
import { runClientCommand } from './cli/client-commands.js';
import { COMMANDS, FLAGS, HELP, type CliOptions, type CommandGroup } from './cli/commands.js';
import { runConsoleCommand } from './cli/console-commands.js';
import { runCaCommand } from './cli/ca-commands.js';
import { runMapCommand } from './cli/map-commands.js';
import { runPoiCommand } from './cli/poi-commands.js';
import { runUndoCommand } from './cli/undo-commands.js';
import { runCentralCommand } from './cli/central-commands.js';
import { runSyncCommand } from './cli/sync-commands.js';
import { runServe } from './cli/serve.js';

/** A command's handler: its second word (or first argument), the arguments after it, the flags. */
type Handler = (sub: string | undefined, rest: string[], options: CliOptions) => Promise<number> | number;

/**
 * One handler per first word of the command table (main/cli/commands.ts), which each handles the
 * rest of its words: a command declared without a handler, or a handler for a command the table
 * does not declare (and the reference page would not show), does not compile.
 */
const HANDLERS = {
  serve: (_sub, _rest, options) => runServe(options),
  client: (sub, _rest, options) => runClientCommand(sub, options),
  pois: runPoiCommand,
  undo: runUndoCommand,
  central: runCentralCommand,
  sync: runSyncCommand,
  maps: runMapCommand,
  backup: (_sub, _rest, options) => runBackup(options),
  backups: (sub, _rest, options) => runBackupsCommand(sub, options),
  restore: (target, _rest, options) => runRestore(target, options),
  console: (sub, _rest, options) => runConsoleCommand(sub, options),
  ca: (sub, _rest, options) => runCaCommand(sub, options),
} satisfies Record<CommandGroup, Handler>;

const isGroup = (word: string): word is CommandGroup => COMMANDS.some((c) => c.command.split(' ')[0] === word);

async function main(argv: string[]): Promise<number> {
  // The table is parseArgs's options as it stands; `satisfies` checks that what parseArgs types
  // from it is what the handlers take.
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: FLAGS });
  const options = values satisfies CliOptions;
  const [command, sub] = positionals;
  if (options.help || command === undefined) {
    console.log(HELP);
    return command === undefined && !options.help ? 2 : 0;
  }
  if (!isGroup(command)) {
    console.error(`Unknown command: ${command}\n\n${HELP}`);
    return 2;
  }
  return HANDLERS[command](sub, positionals.slice(2), options);
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
