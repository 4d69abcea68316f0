import L from 'leaflet';
import { useEffect, useState } from 'react';
import { useMap, useMapEvents } from 'react-leaflet';
import type { PlaceLabel } from '../../../shared/contract';
import { usePlaces } from './queries';

const CREDIT = '<a href="https://www.geonames.org/" target="_blank" rel="noopener noreferrer">GeoNames</a>';

/** The view's box, rounded so that small moves ask again only when they change it much. */
function boxOf(map: L.Map) {
  const b = map.getBounds();
  const r = (v: number): number => Math.round(v * 100) / 100;
  return { south: r(Math.max(-90, b.getSouth())), north: r(Math.min(90, b.getNorth())), west: r(L.Util.wrapNum(b.getWest(), [-180, 180], true)), east: r(L.Util.wrapNum(b.getEast(), [-180, 180], true)) };
}

function labelIcon(place: PlaceLabel): L.DivIcon {
  // The name reaches the page as text only.
  const text = document.createElement('span');
  text.textContent = place.name;
  return L.divIcon({ className: 'place-label', html: text, iconSize: undefined });
}

/**
 * The bundled map's place names: the largest places of the view (GeoNames cities, the geocoder's
 * own table), drawn in a pane above the countries and below the POIs, never in the way of a click
 * or of the keyboard. Shown while the online tiles are not drawn, since those carry names of
 * their own.
 */
export function PlaceLabels() {
  const map = useMap();
  const [box, setBox] = useState(() => boxOf(map));
  useMapEvents({ moveend: () => setBox(boxOf(map)) });
  const places = usePlaces(box);

  useEffect(() => {
    if (!map.getPane('labels')) {
      const pane = map.createPane('labels');
      pane.style.zIndex = '350';
      pane.style.pointerEvents = 'none';
    }
    const group = L.layerGroup();
    // Most populous first: a name that would overlap one already placed is left out (an estimate
    // of its box, 7 px a character, is enough at this size).
    const placed: Array<{ x0: number; y0: number; x1: number; y1: number }> = [];
    for (const place of places.data ?? []) {
      const at = map.latLngToContainerPoint([place.lat, place.lng]);
      const half = place.name.length * 3.5 + 4;
      const box = { x0: at.x - half, x1: at.x + half, y0: at.y - 9, y1: at.y + 9 };
      if (placed.some((o) => box.x0 < o.x1 && o.x0 < box.x1 && box.y0 < o.y1 && o.y0 < box.y1)) continue;
      placed.push(box);
      group.addLayer(L.marker([place.lat, place.lng], { icon: labelIcon(place), pane: 'labels', interactive: false, keyboard: false }));
    }
    group.addTo(map);
    return () => {
      group.remove();
    };
  }, [map, places.data]);

  useEffect(() => {
    const control = map.attributionControl;
    control?.addAttribution(CREDIT);
    return () => {
      control?.removeAttribution(CREDIT);
    };
  }, [map]);
  return null;
}
