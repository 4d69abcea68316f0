import L from 'leaflet';
import { useEffect } from 'react';
import { useMap } from 'react-leaflet';
import { worldCountries } from './basemap';

const STYLE = { color: '#8a8a7a', weight: 0.6, fillColor: '#efeadf', fillOpacity: 1 };

/**
 * The offline world basemap under the tiles. About 100,000 vertices: as SVG every zoom rebuilt
 * thousands of path strings in the DOM; drawn on one canvas it redraws several times faster.
 */
export function Basemap({ pane }: { pane: string }) {
  const map = useMap();
  useEffect(() => {
    const options: L.GeoJSONOptions & L.PathOptions = { style: () => STYLE, interactive: false, renderer: L.canvas({ pane }), pane };
    const layer = L.geoJSON(worldCountries(), options).addTo(map);
    return () => {
      layer.remove();
    };
  }, [map, pane]);
  return null;
}
