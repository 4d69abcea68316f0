import { useEffect } from 'react';
import { useMap, useMapEvents } from 'react-leaflet';

/** `#map=zoom/lat/lng`, as OpenStreetMap writes it: a view can be bookmarked, shared and restored. */
export function parseMapHash(hash: string): { zoom: number; lat: number; lng: number } | undefined {
  const m = /^#map=(\d{1,2})\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)$/.exec(hash);
  if (!m) return undefined;
  const [zoom, lat, lng] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return zoom <= 19 && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? { zoom, lat, lng } : undefined;
}

export function MapHash() {
  const map = useMap();
  useMapEvents({
    moveend: () => {
      const c = map.getCenter().wrap();
      const hash = `#map=${map.getZoom()}/${c.lat.toFixed(5)}/${c.lng.toFixed(5)}`;
      if (location.hash !== hash) history.replaceState(null, '', hash);
    },
  });
  useEffect(() => {
    const apply = () => {
      const view = parseMapHash(location.hash);
      if (view) map.setView([view.lat, view.lng], view.zoom, { animate: false });
    };
    apply();
    window.addEventListener('hashchange', apply);
    return () => window.removeEventListener('hashchange', apply);
  }, [map]);
  return null;
}
