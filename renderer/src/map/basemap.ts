import type { FeatureCollection, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries50m from 'world-atlas/countries-50m.json';

/**
 * Natural Earth country shapes (1:50m) bundled with the app, drawn under the tiles: when the
 * tile server cannot be reached the map still shows the world, at every zoom, with no network.
 */
export function worldCountries(): FeatureCollection<Geometry> {
  const topology = countries50m as unknown as Topology<{ countries: GeometryCollection }>;
  return feature(topology, topology.objects.countries) as FeatureCollection<Geometry>;
}
