import L from 'leaflet';
import { leafletLayer } from 'protomaps-leaflet';
import type { MapPackage } from '../../../../shared/maps';
import { rulesFor } from './styles';

// protomaps-leaflet extends the global Leaflet's GridLayer when a layer is made.
(globalThis as { L?: typeof L }).L = L;

/**
 * A vector package drawn in the page on canvas (no WebGL), labels included, overzoomed past its
 * last zoom so that zoom 18 still shows its streets. Loaded only when a vector package is shown.
 */
export function vectorLayer(pkg: MapPackage, url: string, options: { pane: string }): L.Layer {
  const source = { url, maxDataZoom: pkg.maxZoom, levelDiff: 0 };
  const common = {
    pane: options.pane,
    sources: { '': source },
    bounds: L.latLngBounds([pkg.bounds[1], pkg.bounds[0]], [pkg.bounds[3], pkg.bounds[2]]),
    minZoom: pkg.minZoom,
    maxZoom: 20,
  };
  const rules = pkg.schema === 'protomaps' ? undefined : rulesFor(pkg.schema, pkg.layers);
  const layer: unknown = rules
    ? leafletLayer({ ...common, paintRules: rules.paint, labelRules: rules.labels })
    : leafletLayer({ ...common, flavor: 'light', lang: navigator.language.slice(0, 2) });
  // Its declared type is not Leaflet's, though it is a GridLayer.
  if (!(layer instanceof L.GridLayer)) throw new Error('protomaps-leaflet did not make a Leaflet layer');
  return layer;
}
