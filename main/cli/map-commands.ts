import { resolve } from 'node:path';
import { ServiceError } from '../core/errors.js';
import { createCore } from '../core/service.js';
import { print, run } from './console-call.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';

/**
 * `maps import FILE [--name NAME]`, `maps list`, `maps remove ID`: offline map packages in the
 * data folder, the same ones the app lists (a running app sees an import at its next list).
 */
export async function runMapCommand(sub: string | undefined, args: string[], options: CliOptions): Promise<number> {
  const core = createCore({ file: databasePath(options).file });
  try {
    switch (sub) {
      case 'import': {
        const [file] = args;
        if (file === undefined) throw new Error('maps import needs the FILE to import');
        try {
          print(await core.maps.importFile(resolve(file), { name: options.name }));
        } catch (error) {
          throw error instanceof ServiceError ? new Error(error.message) : error;
        }
        return 0;
      }
      case 'list':
        print(await run(core, 'maps.list', {}));
        return 0;
      case 'remove': {
        const [id] = args;
        if (id === undefined) throw new Error('maps remove needs the ID of a package (see maps list)');
        print(await run(core, 'maps.remove', { id }));
        return 0;
      }
      default:
        throw new Error(`unknown maps command ${sub ?? '(none)'}; use import, list or remove`);
    }
  } finally {
    core.close();
  }
}
