import { networkInterfaces } from 'node:os';
import type { ListenerStatus } from '../../shared/contract.js';
import type { Core } from '../core/service.js';
import type { ListenerSettings } from '../core/settings.js';
import { ApiServer, type RequestLogEntry } from './server.js';

const HOSTS = { local: '127.0.0.1', lan: '0.0.0.0' } as const;

/** Every IPv4 address of this computer a device could use to reach a listener bound to host. */
export function reachableAddresses(host: string, port: number): string[] {
  if (host !== '0.0.0.0') return [`http://${host}:${port}/1/`];
  const addresses = ['127.0.0.1'];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) addresses.push(a.address);
  }
  return addresses.map((a) => `http://${a}:${port}/1/`);
}

/**
 * The API listener the console turns on and off: its settings live in the database, so the
 * next start restores them. Failures (a port in use) are kept and shown, never thrown at the UI.
 */
export class ListenerControl {
  private server: ApiServer | undefined;
  private state: ListenerStatus['state'] = 'stopped';
  private error: string | null = null;
  private boundPort = 0;

  constructor(
    private readonly core: Core,
    private readonly onRequest: (entry: RequestLogEntry) => void = () => undefined,
  ) {}

  status(): ListenerStatus {
    const s = this.core.settings.listener();
    const port = this.state === 'listening' ? this.boundPort : s.port;
    return {
      ...s,
      state: this.state,
      addresses: this.state === 'listening' ? reachableAddresses(HOSTS[s.scope], port) : [],
      error: this.error,
      configurable: true,
    };
  }

  /** Starts the listener if the saved settings say so. */
  async restore(): Promise<ListenerStatus> {
    return this.apply(this.core.settings.listener());
  }

  async configure(next: ListenerSettings): Promise<ListenerStatus> {
    this.core.settings.setListener(next);
    return this.apply(next);
  }

  private async apply(next: ListenerSettings): Promise<ListenerStatus> {
    await this.stop();
    this.error = null;
    if (!next.enabled) return this.status();
    const server = new ApiServer(this.core, { host: HOSTS[next.scope], port: next.port });
    server.on('request', this.onRequest);
    this.state = 'starting';
    try {
      this.boundPort = (await server.start()).port;
      this.server = server;
      this.state = 'listening';
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      this.state = 'failed';
      this.error =
        code === 'EADDRINUSE'
          ? `port ${next.port} is already in use by another program`
          : code === 'EACCES'
            ? `port ${next.port} needs administrator rights; use a port above 1024`
            : (e as Error).message;
    }
    return this.status();
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.state = 'stopped';
    await server?.stop();
  }
}
