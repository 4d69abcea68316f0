import { DEFAULT_CONSOLE_PORT } from '../app/browser-mode.js';
import { consoleAddress } from '../app/console.js';
import { rotateConsoleToken } from '../app/console-token.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';
import { DEFAULT_PORT } from './serve.js';

/** `console rotate-token`: a new console token for the data folder, in force at once. */
export function runConsoleCommand(sub: string | undefined, options: CliOptions): number {
  if (sub !== 'rotate-token') throw new Error(`unknown console command ${sub ?? '(none)'}; use rotate-token`);
  const { dir } = databasePath(options);
  const token = rotateConsoleToken(dir);
  console.log(`The console token of ${dir} is rotated: running consoles refuse the old one from now on.`);
  console.log('Open the admin UI with the new one, at the port its server printed (by default):');
  console.log(`  npm start:  ${consoleAddress(`http://127.0.0.1:${DEFAULT_CONSOLE_PORT}`, token)}`);
  console.log(`  cli serve:  ${consoleAddress(`http://127.0.0.1:${DEFAULT_PORT}`, token)}`);
  return 0;
}
