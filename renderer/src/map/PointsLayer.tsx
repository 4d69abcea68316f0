import L from 'leaflet';
import { useEffect, useRef } from 'react';
import { useMap } from 'react-leaflet';
import type { MapPoint } from '../../../shared/contract';
import type { Move } from '../pois/mutations';
import { clusterIcon, poiIcon } from './icons';
import { isDirection, pinToward } from './pinNavigation';

interface Props {
  points: MapPoint[] | undefined;
  selected: number | undefined;
  onSelect: (poi: number, byKeyboard: boolean) => void;
  /** Opens the next or previous POI on screen, in reading order. */
  step: { by: 1 | -1; at: number } | undefined;
  /** A POI dropped at a new place; `putBack` returns its marker to where the POI is stored. */
  onMove: (to: Move, putBack: () => void) => void;
}

const keyOf = (p: MapPoint): string => (p.poi !== undefined ? `p${p.poi}:${p.name ?? ''}:${p.lat}:${p.lng}` : `c${p.lat}:${p.lng}:${p.count}`);

/**
 * Draws the map's points with Leaflet directly, not one React component per marker: a new
 * answer adds only the markers that appeared and removes those that went, so a pan or a zoom
 * touches few DOM nodes. Names reach the DOM only as `title`/`alt` attributes, never as HTML.
 *
 * For the keyboard the pins are one composite, as a toolbar's buttons are: one Tab stop (the
 * selected pin, or the one nearest the centre), arrow keys to the nearest pin that way, Enter or
 * Space to open a POI or zoom into a cluster. One Tab stop per pin put a hundred stops between the
 * map and the side panel.
 */
export function PointsLayer({ points, selected, onSelect, onMove, step }: Props) {
  const map = useMap();
  const layer = useRef<L.LayerGroup | null>(null);
  const markers = useRef(new Map<string, { marker: L.Marker; point: MapPoint }>());
  const callbacks = useRef({ onSelect, onMove });
  callbacks.current = { onSelect, onMove };
  /** The marker that holds the composite's one Tab stop. */
  const tabStop = useRef<string | undefined>(undefined);
  const selectedRef = useRef(selected);
  selectedRef.current = selected;

  const elementOf = (key: string | undefined): HTMLElement | undefined => (key === undefined ? undefined : markers.current.get(key)?.marker.getElement());

  /** Gives the Tab stop to `key` (the one focused, or the best left when its holder went). */
  function holdTabStop(key: string | undefined): void {
    if (key !== tabStop.current) elementOf(tabStop.current)?.setAttribute('tabindex', '-1');
    tabStop.current = key;
    elementOf(key)?.setAttribute('tabindex', '0');
  }

  /** The pin that should hold the Tab stop when its holder is gone: the selected one, or the one nearest the centre. */
  function bestTabStop(): string | undefined {
    let best: { key: string; distance: number } | undefined;
    const centre = map.getSize().divideBy(2);
    for (const [key, { marker, point }] of markers.current) {
      if (point.poi !== undefined && point.poi === selectedRef.current) return key;
      const distance = map.latLngToContainerPoint(marker.getLatLng()).distanceTo(centre);
      if (!best || distance < best.distance) best = { key, distance };
    }
    return best?.key;
  }

  /** Where each marker is on screen now, those off screen left out (but `keep`). */
  function onScreen(keep?: string): { key: string; x: number; y: number }[] {
    const size = map.getSize();
    return [...markers.current]
      .map(([k, entry]) => ({ key: k, ...map.latLngToContainerPoint(entry.marker.getLatLng()) }))
      .filter((p) => p.key === keep || (p.x >= 0 && p.y >= 0 && p.x <= size.x && p.y <= size.y));
  }

  /** Arrow keys between the pins on screen; Enter and Space act as a click. */
  function wire(key: string, marker: L.Marker, action: () => void): L.Marker {
    marker.on('add', () => {
      const element = marker.getElement();
      if (!element) return;
      element.setAttribute('role', 'button');
      element.setAttribute('tabindex', key === tabStop.current ? '0' : '-1');
      // A cluster's icon holds its count as text, which would otherwise be its whole name ("2").
      if (marker.options.title) element.setAttribute('aria-label', marker.options.title);
      element.addEventListener('focus', () => holdTabStop(key));
      element.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          action();
          return;
        }
        if (!isDirection(e.key) || e.altKey || e.ctrlKey || e.metaKey) return;
        e.preventDefault();
        const pins = onScreen(key);
        const from = pins.find((p) => p.key === key);
        const next = from && pinToward(from, pins, e.key);
        if (next === undefined) return;
        holdTabStop(next);
        elementOf(next)?.focus();
      });
    });
    return marker;
  }

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
    let hadFocus = false;
    for (const [key, entry] of markers.current) {
      if (!next.has(key)) {
        hadFocus ||= entry.marker.getElement()?.contains(document.activeElement) === true;
        group.removeLayer(entry.marker);
        markers.current.delete(key);
      }
    }
    for (const [key, point] of next) {
      if (markers.current.has(key)) continue;
      const marker = point.poi !== undefined ? poiMarker(key, point) : clusterMarker(key, point);
      markers.current.set(key, { marker, point });
      group.addLayer(marker);
    }
    if (tabStop.current === undefined || !markers.current.has(tabStop.current)) holdTabStop(bestTabStop());
    // The focused pin went (the map moved on): focus goes on to the new Tab stop, not to the page's top.
    if (hadFocus) elementOf(tabStop.current)?.focus();
  }, [points, map]);

  // ] and [: the POIs on screen in reading order (rows of 40 px, then left to right), from the one open.
  useEffect(() => {
    if (!step) return;
    const pois = onScreen()
      .filter((p) => markers.current.get(p.key)?.point.poi !== undefined)
      .sort((a, b) => Math.round(a.y / 40) - Math.round(b.y / 40) || a.x - b.x);
    if (pois.length === 0) return;
    const at = pois.findIndex((p) => markers.current.get(p.key)?.point.poi === selectedRef.current);
    const next = pois[at === -1 ? (step.by === 1 ? 0 : pois.length - 1) : (at + step.by + pois.length) % pois.length]!;
    holdTabStop(next.key);
    callbacks.current.onSelect(markers.current.get(next.key)!.point.poi!, false);
    // Step by step from where it is: the pin keeps the keyboard, so arrows and Enter go on from it.
    elementOf(next.key)?.focus();
  }, [step]);

  useEffect(() => {
    for (const { marker, point } of markers.current.values()) {
      if (point.poi !== undefined) marker.setIcon(poiIcon(point.poi === selected));
    }
  }, [selected, points]);

  function poiMarker(key: string, point: MapPoint): L.Marker {
    const poi = point.poi!;
    const marker = L.marker([point.lat, point.lng], {
      icon: poiIcon(poi === selected),
      draggable: true,
      keyboard: false,
      title: point.name ?? '',
      alt: point.name ?? '',
    });
    marker.on('click', () => callbacks.current.onSelect(poi, false));
    wire(key, marker, () => callbacks.current.onSelect(poi, true));
    marker.on('dragend', () => {
      const to = marker.getLatLng().wrap();
      // `point` is the answer that drew this marker: where the POI is stored.
      callbacks.current.onMove({ poi, name: point.name ?? '', lat: to.lat, lng: to.lng }, () => marker.setLatLng([point.lat, point.lng]));
    });
    return marker;
  }

  function clusterMarker(key: string, point: MapPoint): L.Marker {
    const marker = L.marker([point.lat, point.lng], { icon: clusterIcon(point.count), title: `${point.count} POIs: zoom in`, keyboard: false });
    const zoomIn = (): void => {
      map.setView([point.lat, point.lng], Math.max(point.expandZoom ?? map.getZoom() + 2, map.getZoom() + 1));
    };
    marker.on('click', zoomIn);
    // By keyboard, focus stays on the map: the cluster's marker goes with the zoom.
    return wire(key, marker, () => {
      map.getContainer().focus();
      zoomIn();
    });
  }

  return null;
}
