import type { FeatureCollection, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import countries50m from 'world-atlas/countries-50m.json';

type Countries = Topology<{ countries: GeometryCollection }>;

/**
 * Natural Earth country shapes (1:50m) bundled with the app, drawn under the tiles: when the
 * tile server cannot be reached the map still shows the world, at every zoom, with no network.
 */
export function worldCountries(): FeatureCollection<Geometry> {
  const topology = countries50m as unknown as Countries;
  return feature(topology, topology.objects.countries) as FeatureCollection<Geometry>;
}

/**
 * The same at 1:10m, for the zooms where 1:50m puts whole towns at sea (Venice's Piazza San
 * Marco at zoom 13): 3.6 MB, bundled as its own chunk and loaded the first time it is needed.
 */
export async function detailedCountries(): Promise<FeatureCollection<Geometry>> {
  const topology = (await import('world-atlas/countries-10m.json')).default as unknown as Countries;
  return feature(topology, topology.objects.countries) as FeatureCollection<Geometry>;
}
