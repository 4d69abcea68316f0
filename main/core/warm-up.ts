import { isWarmable } from './geocode/index.js';
import type { Services } from './services.js';

/**
 * Clustering blocks the event loop for about 7 ms per 1,000 POIs and keeps them in memory: a
 * client with more is clustered when its map is first opened, not at every start.
 */
const WARM_CLUSTERS_UP_TO = 200_000;

/**
 * Work the first requests would otherwise wait for, done right after start-up: the offline
 * geocoding index, and the map clusters of clients of moderate size. Failures only cost that
 * head start.
 */
export async function warmUp(core: Services): Promise<void> {
  try {
    const count = core.db.prepare<[string], number>('SELECT count(*) FROM pois WHERE client_id = ?').pluck();
    const small = core.clients.list().filter((c) => (count.get(c.client_id) ?? 0) <= WARM_CLUSTERS_UP_TO);
    await core.clusters.warm(small.map((c) => c.client_id));
    if (isWarmable(core.geocoder)) await core.geocoder.warm();
  } catch (error) {
    console.error('warm-up failed (the first requests will be slower):', error);
  }
}
