import { createCore } from '../core/service.js';
import { print, run } from './console-call.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';

/**
 * `client add|list|rotate-token|implicit-flow`: the console's own operations (the same handlers,
 * the same checks), with their answer as JSON on stdout so that scripts can read it.
 */
export async function runClientCommand(sub: string | undefined, options: CliOptions): Promise<number> {
  const core = createCore({ file: databasePath(options).file });
  try {
    switch (sub) {
      case 'add':
        if (!options.name) throw new Error('client add needs --name NAME');
        print(await run(core, 'clients.create', { name: options.name, implicitFlow: options['implicit-flow'] === true }));
        return 0;
      case 'list':
        print(await run(core, 'clients.list', {}));
        return 0;
      case 'rotate-token':
        print(await run(core, 'clients.rotateToken', { clientId: requireClient(options) }));
        return 0;
      case 'implicit-flow':
        if (options.on === options.off) throw new Error('client implicit-flow needs exactly one of --on or --off');
        print(await run(core, 'clients.setImplicitFlow', { clientId: requireClient(options), enabled: options.on === true }));
        return 0;
      default:
        throw new Error(`unknown client command ${sub ?? '(none)'}; use add, list, rotate-token or implicit-flow`);
    }
  } finally {
    core.close();
  }
}

function requireClient(options: CliOptions): string {
  if (!options.client) throw new Error('this command needs --client CLIENT_ID');
  return options.client;
}
