import { createCore } from '../core/service.js';
import { SyncAgent } from '../sync-client/agent.js';
import { ListenerControl } from '../http/listener-control.js';
import { ApiServer } from '../http/server.js';
import { dirname } from 'node:path';
import { consoleAddress, consoleOptions } from './console.js';
import { liveConsoleToken } from './console-token.js';
import { startHost } from './host.js';
import { hostLogger } from './host-log.js';

export const DEFAULT_CONSOLE_PORT = 4780;

export interface BrowserModeOptions {
  file: string;
  /** The console's port; when taken, any free port. */
  port?: number;
  log?: (line: string) => void;
  /** A fixed console token (tests); by default, the data folder's (see console-token.ts). */
  token?: string;
  /** Import the sample city on a first start (default true; the end-to-end tests keep their own maps). */
  sampleMap?: boolean;
}

export interface RunningConsole {
  url: string;
  stop(): Promise<void>;
}

/**
 * The desktop application without Electron: the same core and database, the admin UI on
 * 127.0.0.1 behind the data folder's console token, and the API listener as the console
 * configures it.
 */
export async function startBrowserMode(options: BrowserModeOptions): Promise<RunningConsole> {
  const log = options.log ?? console.log;
  const logger = hostLogger({ format: 'pretty', write: (text) => log(text.trimEnd()) });
  const fixed = options.token;
  const token = fixed === undefined ? liveConsoleToken(dirname(options.file)) : () => fixed;
  const core = createCore({ file: options.file });
  let port: number | undefined;
  const listener = new ListenerControl(core, (r) => log(`api: ${r.method} ${r.path} ${r.status} ${r.ms.toFixed(1)}ms`), () => port, dirname(options.file));
  const sync = new SyncAgent(core.syncSide, dirname(options.file), { auto: true });
  const opts = consoleOptions(core, listener, (e) => logger.error({ err: e }, 'a console operation failed'), token, sync);
  let server = new ApiServer(core, { host: '127.0.0.1', port: options.port ?? DEFAULT_CONSOLE_PORT, api: false, console: opts });
  const running = await startHost({
    core,
    logger,
    sampleMap: options.sampleMap !== false,
    sync,
    open: async () => {
      try {
        port = (await server.start()).port;
      } catch {
        server = new ApiServer(core, { host: '127.0.0.1', port: 0, api: false, console: opts });
        port = (await server.start()).port;
      }
      const status = await listener.restore();
      if (status.state === 'listening') log(`API listening on ${status.addresses.join(', ')}`);
      if (status.error) log(`API listener: ${status.error}`);
    },
    close: async () => {
      await listener.stop();
      await server.stop();
    },
  });
  return { url: consoleAddress(`http://127.0.0.1:${port}`, token()), stop: running.stop };
}
