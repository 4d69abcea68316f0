import { hostLogger, logFormatOf } from '../app/host-log.js';
import { CONFLICT_POLICIES } from '../../shared/sync.js';
import { Devices } from '../central/devices.js';
import { startCentralServer } from '../central/server.js';
import { centralSchemaVersion, migrateCentral } from '../central/store/migrate.js';
import { CENTRAL_MIGRATIONS } from '../central/store/migrations/index.js';
import { centralPool } from '../central/store/pool.js';
import { print } from './console-call.js';
import type { CliOptions } from './commands.js';
import { parsePort } from './options.js';

/**
 * The central store's administration: `central init` (schema), `central serve` (the sync
 * service), `central device add|list|revoke` (device credentials), `central policy`.
 */
export async function runCentralCommand(sub: string | undefined, args: string[], options: CliOptions): Promise<number> {
  if (!options.postgres) throw new Error(`central ${sub ?? ''} needs --postgres URL (postgres://user@host:port/database)`);
  const pool = centralPool(options.postgres);
  try {
    if (sub === 'init') {
      print(await migrateCentral(pool));
    } else if (sub === 'serve') {
      const at = await centralSchemaVersion(pool);
      const latest = CENTRAL_MIGRATIONS.at(-1)!.version;
      if (at !== latest) throw new Error(`the central database is at schema version ${at}, this build needs ${latest}: run central init --postgres URL first`);
      const host = options.host ?? '127.0.0.1';
      // JSON lines on stdout, one per request and one per failure with its cause (never a credential).
      const logger = hostLogger({ format: logFormatOf(options['log-format'], 'json') });
      const { app, url } = await startCentralServer(pool, { host, port: parsePort(options.port, 8443), allowPlainHttp: options['allow-plain-http'] === true, logger });
      console.log(`Sync service on ${url} (plain HTTP${options['allow-plain-http'] ? '' : ', answered for this computer only: put TLS in front for others'})`);
      await new Promise<void>((resolve) => {
        const stop = (): void => void app.close().then(() => resolve());
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
    } else if (sub === 'device') {
      const [action, id] = args;
      const devices = new Devices(pool);
      if (action === 'add') {
        if (!options.name || !options.client) throw new Error('central device add needs --name NAME and --client CLIENT_ID');
        print(await devices.add(options.client, options.name, options['client-name']));
      } else if (action === 'list') print(await devices.list());
      else if (action === 'revoke' && id) {
        if (!(await devices.revoke(id))) throw new Error(`no device ${id} to revoke (or it was already revoked)`);
        print({ revoked: id });
      } else throw new Error('use: central device add|list|revoke');
    } else if (sub === 'policy') {
      const policy = CONFLICT_POLICIES.find((p) => p === options.policy);
      if (!options.client || !policy) throw new Error(`central policy needs --client CLIENT_ID and --policy ${CONFLICT_POLICIES.join('|')}`);
      const { rowCount } = await pool.query('UPDATE clients SET conflict_policy = $2 WHERE id = $1', [options.client, policy]);
      if (!rowCount) throw new Error(`no client application ${options.client} on the central (central device add creates it)`);
      print({ client_id: options.client, policy });
    } else {
      throw new Error(`unknown central command ${sub ?? '(none)'}; use init, serve, device or policy`);
    }
    return 0;
  } finally {
    await pool.end();
  }
}
