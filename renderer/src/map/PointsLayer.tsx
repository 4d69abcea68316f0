import L from 'leaflet';
import { useEffect, useRef } from 'react';
import { useMap } from 'react-leaflet';
import type { MapPoint } from '../../../shared/contract';
import type { Move } from '../pois/mutations';
import { clusterIcon, poiIcon } from './icons';

interface Props {
  points: MapPoint[] | undefined;
  selected: number | undefined;
  onSelect: (poi: number) => void;
  /** A POI dropped at a new place; `putBack` returns its marker to where the POI is stored. */
  onMove: (to: Move, putBack: () => void) => void;
}

/**
 * Leaflet makes a marker with `keyboard: true` focusable, but Enter or Space on it does nothing:
 * they act as a click here, as on a button, and the marker is named by its title.
 */
function activateByKeyboard(marker: L.Marker, action: () => void): L.Marker {
  marker.on('add', () => {
    const element = marker.getElement();
    // A cluster's icon holds its count as text, which would otherwise be its whole name ("2").
    if (marker.options.title) element?.setAttribute('aria-label', marker.options.title);
    element?.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      e.preventDefault();
      action();
    });
  });
  return marker;
}

const keyOf = (p: MapPoint): string => (p.poi !== undefined ? `p${p.poi}:${p.name ?? ''}:${p.lat}:${p.lng}` : `c${p.lat}:${p.lng}:${p.count}`);

/**
 * Draws the map's points with Leaflet directly, not one React component per marker: a new
 * answer adds only the markers that appeared and removes those that went, so a pan or a zoom
 * touches few DOM nodes. Names reach the DOM only as `title`/`alt` attributes, never as HTML.
 */
export function PointsLayer({ points, selected, onSelect, onMove }: Props) {
  const map = useMap();
  const layer = useRef<L.LayerGroup | null>(null);
  const markers = useRef(new Map<string, { marker: L.Marker; point: MapPoint }>());
  const callbacks = useRef({ onSelect, onMove });
  callbacks.current = { onSelect, onMove };

  useEffect(() => {
    const group = L.layerGroup().addTo(map);
    layer.current = group;
    const current = markers.current;
    return () => {
      group.remove();
      current.clear();
      layer.current = null;
    };
  }, [map]);

  useEffect(() => {
    const group = layer.current;
    if (!group || !points) return;
    const next = new Map(points.map((p) => [keyOf(p), p]));
    for (const [key, entry] of markers.current) {
      if (!next.has(key)) {
        group.removeLayer(entry.marker);
        markers.current.delete(key);
      }
    }
    for (const [key, point] of next) {
      if (markers.current.has(key)) continue;
      const marker = point.poi !== undefined ? poiMarker(point) : clusterMarker(point);
      group.addLayer(marker);
      markers.current.set(key, { marker, point });
    }
  }, [points, map]);

  useEffect(() => {
    for (const { marker, point } of markers.current.values()) {
      if (point.poi !== undefined) marker.setIcon(poiIcon(point.poi === selected));
    }
  }, [selected, points]);

  function poiMarker(point: MapPoint): L.Marker {
    const poi = point.poi!;
    const marker = L.marker([point.lat, point.lng], {
      icon: poiIcon(poi === selected),
      draggable: true,
      keyboard: true,
      title: point.name ?? '',
      alt: point.name ?? '',
    });
    const select = (): void => callbacks.current.onSelect(poi);
    marker.on('click', select);
    activateByKeyboard(marker, select);
    marker.on('dragend', () => {
      const to = marker.getLatLng().wrap();
      // `point` is the answer that drew this marker: where the POI is stored.
      callbacks.current.onMove({ poi, name: point.name ?? '', lat: to.lat, lng: to.lng }, () => marker.setLatLng([point.lat, point.lng]));
    });
    return marker;
  }

  function clusterMarker(point: MapPoint): L.Marker {
    const marker = L.marker([point.lat, point.lng], { icon: clusterIcon(point.count), title: `${point.count} POIs: zoom in`, keyboard: true });
    const zoomIn = (): void => {
      map.setView([point.lat, point.lng], Math.max(point.expandZoom ?? map.getZoom() + 2, map.getZoom() + 1));
    };
    marker.on('click', zoomIn);
    // By keyboard, focus stays on the map: the cluster's marker goes with the zoom.
    return activateByKeyboard(marker, () => {
      map.getContainer().focus();
      zoomIn();
    });
  }

  return null;
}
