import Supercluster from 'supercluster';
import { MAX_VIEW_POINTS, type MapPoint, type MapView } from '../../../shared/contract.js';
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
    return { points: points.length > MAX_VIEW_POINTS ? onGrid(points, query) : points, total };
  }
}

/**
 * Past the clustering zooms (or in a dense spot) a view can hold more POIs than a page can draw:
 * they are then gathered on a grid of the view, at most MAX_VIEW_POINTS cells, each drawn at the
 * mean position of its points with their count, and a click zooms in further.
 */
function onGrid(points: readonly MapPoint[], query: MapQuery): MapPoint[] {
  const side = Math.floor(Math.sqrt(MAX_VIEW_POINTS));
  const width = (query.east >= query.west ? query.east - query.west : query.east + 360 - query.west) || 1e-9;
  const height = query.north - query.south || 1e-9;
  const cells = new Map<number, { lat: number; lng: number; count: number; one?: MapPoint }>();
  for (const p of points) {
    const x = Math.min(side - 1, Math.max(0, Math.floor((((p.lng - query.west + 360) % 360) / width) * side)));
    const y = Math.min(side - 1, Math.max(0, Math.floor(((p.lat - query.south) / height) * side)));
    const key = y * side + x;
    const cell = cells.get(key);
    if (!cell) cells.set(key, { lat: p.lat * p.count, lng: p.lng * p.count, count: p.count, one: p });
    else {
      cell.lat += p.lat * p.count;
      cell.lng += p.lng * p.count;
      cell.count += p.count;
      delete cell.one;
    }
  }
  return [...cells.values()].map((c) =>
    c.one ?? { lat: c.lat / c.count, lng: c.lng / c.count, count: c.count, expandZoom: Math.min(query.zoom + 2, 22) },
  );
}
