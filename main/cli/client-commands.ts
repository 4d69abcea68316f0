import { createCore } from '../core/service.js';
import { databasePath, type CliOptions } from './options.js';

/** `client add|list|rotate-token|implicit-flow`: JSON on stdout, so scripts can read it. */
export async function runClientCommand(sub: string | undefined, options: CliOptions): Promise<number> {
  const core = createCore({ file: databasePath(options).file });
  try {
    switch (sub) {
      case 'add': {
        if (!options.name) throw new Error('client add needs --name NAME');
        print(core.clients.create({ name: options.name, implicitFlow: options['implicit-flow'] === true }));
        return 0;
      }
      case 'list':
        print(core.clients.list());
        return 0;
      case 'rotate-token': {
        const id = requireClient(options);
        print({ client_id: core.clients.summary(id).client_id, admin_token: core.clients.rotateAdminToken(id) });
        return 0;
      }
      case 'implicit-flow': {
        const id = requireClient(options);
        if (options.on === options.off) throw new Error('client implicit-flow needs exactly one of --on or --off');
        print(core.clients.setImplicitFlow(id, options.on === true));
        return 0;
      }
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

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}
