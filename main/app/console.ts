import { isShellOp, SHELL_OPS, type Answer, type ListenerStatus, type OpName, type ShellOp } from '../../shared/contract.js';
import { tileImageSource } from '../../shared/tiles.js';
import { rendererDir } from '../build/renderer-dir.js';
import { dispatch } from '../core/console/dispatch.js';
import type { Handlers } from '../core/console/handlers.js';
import { ServiceError } from '../core/errors.js';
import type { Core } from '../core/service.js';
import type { ListenerSettings } from '../core/settings/settings.js';
import type { ConsoleOptions } from '../http/console-routes.js';
import type { Inspector } from '../http/inspector/inspector.js';
import type { SyncAgent } from '../sync-client/agent.js';

/** What the console needs of the API listener, whoever runs it. */
export interface ListenerHandle {
  status(): ListenerStatus | Promise<ListenerStatus>;
  configure(next: ListenerSettings): Promise<ListenerStatus>;
  /** A new certificate authority for the data folder; the running HTTPS port, if any, takes a certificate it signs. */
  rotateAuthority(): Promise<ListenerStatus>;
  /** Its request inspector (docs/devices.md#request-inspector); absent where the host keeps none. */
  inspector?: () => Inspector | Promise<Inspector>;
}

const NO_AUTHORITY = (): never => {
  throw new ServiceError('FORBIDDEN', 'this process has no certificate authority: start it on a data folder');
};

/** The listener of `cli serve`: shown, but fixed by the command line; its certificate authority may be rotated. */
export function fixedListener(status: () => Omit<ListenerStatus, 'configurable'>, rotateAuthority: () => Promise<void> = NO_AUTHORITY, inspector?: Inspector): ListenerHandle {
  return {
    ...(inspector ? { inspector: () => inspector } : {}),
    status: () => ({ ...status(), configurable: false }),
    rotateAuthority: async () => {
      await rotateAuthority();
      return { ...status(), configurable: false };
    },
    configure: () => {
      throw new ServiceError('FORBIDDEN', 'this listener was started from the command line; restart it with other --port/--host');
    },
  };
}

/** Sync where the host runs none (tests, and hosts started without a data folder). */
const NO_SYNC = (): never => {
  throw new ServiceError('FORBIDDEN', 'this process does not sync: start the app or cli serve on a data folder');
};

/** The listener's request inspector, or the refusal of a host that keeps none. */
const inspectorOf = async (listener: ListenerHandle): Promise<Inspector> => {
  if (!listener.inspector) throw new ServiceError('FORBIDDEN', 'this process keeps no requests: open the admin UI of the app or of cli serve');
  return listener.inspector();
};

/** Every console operation: the core's, plus the listener's and the sync's, which the host runs. */
function allHandlers(core: Core, listener: ListenerHandle, sync?: SyncAgent): Handlers<OpName> {
  return {
    ...core.console,
    'listener.status': () => listener.status(),
    'listener.configure': (i) => listener.configure(i),
    'listener.rotateAuthority': () => listener.rotateAuthority(),
    'inspector.follow': async (i) => (await inspectorOf(listener)).follow(i.after),
    'inspector.get': async (i) => (await inspectorOf(listener)).get(i.id),
    'inspector.curl': async (i) => (await inspectorOf(listener)).curl(i.id, i.withSecrets),
    'inspector.replay': async (i) => (await inspectorOf(listener)).replay(i.id),
    'inspector.clear': async () => (await inspectorOf(listener)).clear(),
    'inspector.save': async () => (await inspectorOf(listener)).save(),
    'inspector.configure': async (i) => (await inspectorOf(listener)).configure(i.enabled),
    'sync.status': () => (sync ? sync.status() : NO_SYNC()),
    'sync.configure': (i) => (sync ? sync.configure(i.url, i.credential, i.insecureHttp) : NO_SYNC()),
    'sync.now': () => (sync ? sync.syncNow() : NO_SYNC()),
    'sync.conflicts': () => (sync ? sync.conflicts() : NO_SYNC()),
    'sync.resolve': ({ id, ...choice }) => (sync ? sync.resolve(id, choice) : NO_SYNC()),
    ...shellRefusals(),
  };
}

/**
 * The shell's operations where there is no shell: refused, saying what to do instead. The
 * Electron shell answers them before these handlers (desktop/ipc.ts).
 */
function shellRefusals(): Handlers<ShellOp> {
  const refuse = (op: ShellOp) => (): never => {
    const shell: { instead: string; parameter?: string } = SHELL_OPS[op];
    throw new ServiceError('FORBIDDEN', `only the desktop app answers ${op}: ${shell.instead}`, shell.parameter);
  };
  const refusals: Partial<Handlers<ShellOp>> = {};
  for (const op of Object.keys(SHELL_OPS).filter(isShellOp)) refusals[op] = refuse(op);
  // Every key of SHELL_OPS was given its refusal just above, which is what Handlers<ShellOp> asks for.
  return refusals as Handlers<ShellOp>;
}

export function createInvoke(core: Core, listener: ListenerHandle, onBug: (e: unknown) => void, sync?: SyncAgent) {
  const handlers = allHandlers(core, listener, sync);
  return (op: string, input: unknown): Promise<Answer<unknown>> => dispatch(handlers, op, input, onBug);
}

/**
 * The address to open: the token travels in the fragment, which the browser never sends; the
 * page moves it into its tab's session storage and sends it as a header.
 */
export const consoleAddress = (origin: string, token: string): string => `${origin}/#token=${token}`;

export function consoleOptions(core: Core, listener: ListenerHandle, onBug: (e: unknown) => void, token: () => string, sync?: SyncAgent): ConsoleOptions {
  return {
    token,
    invoke: createInvoke(core, listener, onBug, sync),
    staticDir: rendererDir(),
    tileOrigins: () => {
      const source = tileImageSource(core.settings.map().tileUrl);
      return source ? [source] : [];
    },
    maps: core.maps,
    onlineTiles: core.onlineTiles,
    startMapImport: (file) => core.startMapImport(file),
    exportPois: (clientId, format, options) => core.exportPois(clientId, format, options),
    requireClient: (clientId) => core.requireClient(clientId),
    exportFile: (jobId) => core.exportFileOf(jobId),
    imports: core,
  };
}
