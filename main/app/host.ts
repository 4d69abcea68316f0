import type { Logger } from 'pino';
import type { Core } from '../core/service.js';
import { logCoreEvents } from './host-log.js';
import type { SyncAgent } from '../sync-client/agent.js';
import { importSampleMap } from './sample-map.js';

/** What a host (the desktop, browser mode, `cli serve`) brings to the one lifecycle. */
export interface HostParts {
  core: Core;
  /** The host's log (host-log.ts): what the core tells it is written there while the host runs. */
  logger: Logger;
  /** Import the sample city on a first start (the end-to-end tests keep their own maps). */
  sampleMap: boolean;
  /** What the host serves on: its listeners, its window. Opened once the core is warm. */
  open: () => Promise<void>;
  /** Closes them, letting the requests under way finish. */
  close: () => Promise<void>;
  sync: SyncAgent | undefined;
}

export interface RunningHost {
  /** Stops everything in the reverse order of the start; the same promise however often asked. */
  stop(): Promise<void>;
}

/**
 * The one order in which every host starts what it runs, and the reverse in which it stops:
 *
 * 1. the sample city, on a first start (the map has something to show);
 * 2. the warm-up (the offline geocoder, caches): before anything listens, so that the first
 *    requests do not wait behind it (a first map view answered in 12 ms took 114 ms otherwise);
 * 3. the host's listeners or window;
 * 4. the daily backups, then the sync agent: background work, once the app answers.
 *
 * Stopping: the sync agent (its sync under way finished), the backups' timer, the listeners
 * (requests under way finish), a restore past the point where it can stop, then the core (jobs
 * still running are left to be undone at the next start, main/core/jobs/jobs.ts). Nothing of it is left running: no timer, socket or
 * child process.
 */
export async function startHost(parts: HostParts): Promise<RunningHost> {
  const { core } = parts;
  const unlog = logCoreEvents(core, parts.logger);
  try {
    if (parts.sampleMap) await importSampleMap(core, (line) => parts.logger.info(line));
    await core.warmUp();
    await parts.open();
  } catch (error) {
    core.close();
    unlog();
    throw error;
  }
  core.backups.startDaily();
  parts.sync?.start();
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        await parts.sync?.stop();
        core.backups.stopDaily();
        await parts.close();
        // A restore replacing the data finishes first; other jobs are left to the next start.
        await core.jobs.finishUncancellable();
        core.close();
        unlog();
      })()),
  };
}
