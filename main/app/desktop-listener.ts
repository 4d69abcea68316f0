import type { ListenerStatus } from '../../shared/contract.js';
import type { Core } from '../core/service.js';
import type { ListenerControl } from '../http/listener-control.js';
import type { ListenerHandle } from './console.js';

export interface DesktopListener extends ListenerHandle {
  /** Starts the listener if the saved settings say so. */
  restore(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The desktop app's API listener. It is off until someone turns it on, so its module (Fastify:
 * ~100 ms to load) is imported the first time it is needed: when the saved settings turn it on
 * at start, or when the Listener panel asks about it. The desktop bundle keeps it in a file of
 * its own (main/build/desktop.ts), which Electron does not load at start.
 */
export function desktopListener(core: Core, folder?: string): DesktopListener {
  let control: Promise<ListenerControl> | undefined;
  const load = (): Promise<ListenerControl> =>
    (control ??= import('../http/listener-control.js').then(({ ListenerControl }) => new ListenerControl(core, undefined, undefined, folder)));
  return {
    status: async (): Promise<ListenerStatus> => (await load()).status(),
    configure: async (next) => (await load()).configure(next),
    rotateAuthority: async () => (await load()).rotateAuthority(),
    inspector: async () => (await load()).inspector(),
    restore: async () => {
      if (core.settings.listener().enabled) await (await load()).restore();
    },
    stop: async () => {
      await (await control)?.stop();
    },
  };
}
