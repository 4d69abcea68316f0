import { isWarmable } from './geocode/index.js';
import type { Services } from './services.js';

/**
 * Work the first requests would otherwise wait for, done right after start-up: the offline
 * geocoding index. (The map needs none: its clusters are kept in the database, migration 013.)
 * Failures only cost that head start.
 */
export async function warmUp(core: Services): Promise<void> {
  try {
    if (isWarmable(core.geocoder)) await core.geocoder.warm();
  } catch (error) {
    core.events.emit({ kind: 'warm-up-failed', error });
  }
}
