import { isWarmable } from './geocode/index.js';
import type { Core } from './service.js';

/**
 * Work the first requests would otherwise wait for, done right after start-up: the offline
 * geocoding index, and each client's map clusters. Failures only cost that head start.
 */
export async function warmUp(core: Core): Promise<void> {
  try {
    await core.clusters.warm(core.clients.list().map((c) => c.client_id));
    if (isWarmable(core.geocoder)) await core.geocoder.warm();
  } catch (error) {
    console.error('warm-up failed (the first requests will be slower):', error);
  }
}
