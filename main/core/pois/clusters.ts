import Supercluster from 'supercluster';
import type { MapPoint, MapView } from '../../../shared/contract.js';
import type { DataWatch } from './data-watch.js';
import type { Marker, PoiStore } from './poi-store.js';

/** Beyond this zoom every POI is drawn on its own (supercluster's maxZoom + 1). */
export const CLUSTER_MAX_ZOOM = 16;
/** A filtered map clusters at most this many POIs. */
const FILTERED_LIMIT = 1_000_000;

interface Props {
  poi: number;
  name: string;
}

interface Entry {
  /** The POIs' stamp (DataWatch.pois) the index was built from. */
  stamp: string;
  index: Supercluster<Props>;
}

export interface MapQuery {
  south: number;
  north: number;
  west: number;
  east: number;
  zoom: number;
  q?: string | undefined;
  categories?: number[] | undefined;
}

/**
 * Clusters a client's POIs for the map, so that 100,000 POIs draw as a few hundred points.
 * One index per client and filter, built on first use and rebuilt after any POI write, from
 * this process or another: the renderer asks for its viewport and zoom and receives only what
 * it draws.
 */
export class ClusterCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly store: PoiStore,
    private readonly watch: DataWatch,
  ) {}

  private index(clientId: string, q: string | undefined, categories: number[] | undefined): Supercluster<Props> {
    const key = JSON.stringify([clientId, q ?? null, categories ?? null]);
    const stamp = this.watch.version();
    const hit = this.entries.get(key);
    if (hit && hit.stamp === stamp) return hit.index;
    const markers: Marker[] = this.store.whereMarkers(clientId, { q, categories, limit: FILTERED_LIMIT });
    const index = new Supercluster<Props>({ radius: 80, maxZoom: CLUSTER_MAX_ZOOM, minPoints: 2 });
    index.load(
      markers.map((m) => ({
        type: 'Feature' as const,
        geometry: { type: 'Point' as const, coordinates: [m.lng, m.lat] },
        properties: { poi: m.id, name: m.name },
      })),
    );
    // Stale indexes of other filters go; the unfiltered one of each client is worth keeping.
    for (const [k, e] of this.entries) if (e.stamp !== stamp) this.entries.delete(k);
    if (this.entries.size > 16) this.entries.clear();
    this.entries.set(key, { stamp, index });
    return index;
  }

  /**
   * Builds the unfiltered index of every client ahead of the first map request, one client per
   * turn of the event loop, so that opening the app does not wait for it.
   */
  async warm(clientIds: readonly string[]): Promise<void> {
    for (const clientId of clientIds) {
      await new Promise((resolve) => setImmediate(resolve));
      this.index(clientId, undefined, undefined);
    }
  }

  view(clientId: string, query: MapQuery): MapView {
    const q = query.q?.trim() ? query.q.trim() : undefined;
    const categories = query.categories?.length ? query.categories : undefined;
    const index = this.index(clientId, q, categories);
    // A viewport across the antimeridian comes as west > east; supercluster takes that as is.
    const features = index.getClusters([query.west, query.south, query.east, query.north], query.zoom);
    let total = 0;
    const points: MapPoint[] = features.map((f) => {
      const [lng, lat] = f.geometry.coordinates as [number, number];
      if ('cluster' in f.properties && f.properties.cluster) {
        const count = f.properties.point_count;
        total += count;
        return { lat, lng, count, expandZoom: index.getClusterExpansionZoom(f.properties.cluster_id) };
      }
      total += 1;
      const props = f.properties as Props;
      return { lat, lng, count: 1, poi: props.poi, name: props.name };
    });
    return { points, total };
  }
}
