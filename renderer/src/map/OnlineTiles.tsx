import L from 'leaflet';
import { useEffect, useState } from 'react';
import { useMap } from 'react-leaflet';
import type { Settings } from '../../../shared/contract';
import { attributionHtml } from './attribution';
import { BASEMAP_NAME } from './Basemap';
import type { FootMessage } from './MapFoot';

/** The notice at the map's foot while the online tiles fail (none otherwise), naming what the map falls back to. */
export function offlineNotice(failing: boolean, showing: string[]): FootMessage[] {
  if (!failing) return [];
  const fallback = new Intl.ListFormat('en', { type: 'conjunction' }).format([...showing, BASEMAP_NAME]);
  return [{ key: `offline, showing ${fallback}`, text: `Online map tiles did not load (offline, or the tile server is unreachable): showing ${fallback}.` }];
}

/**
 * The online tile server's layer, honest about what it draws: its credit shows from the first of
 * its tiles drawn (and stays while they may be on screen), and it tells when a whole round of
 * tiles failed (no network, a wrong URL), for offlineNotice to say so; a later round that draws
 * clears that. Mounted once per tile URL (keyed by it), so a new server starts uncredited.
 */
export function OnlineTiles({ settings, url, onFailing }: { settings: Settings; url: string; onFailing: (failing: boolean) => void }) {
  const map = useMap();
  const [drawnOnce, setDrawnOnce] = useState(false);
  const [failing, setFailing] = useState(false);
  const credit = attributionHtml(settings);

  useEffect(() => {
    const layer = L.tileLayer(url);
    // Leaflet fires `load` when every tile it asked for has answered, drawn or not.
    let drawn = 0;
    let failed = 0;
    layer.on('tileload', () => {
      drawn++;
      setDrawnOnce(true);
    });
    layer.on('tileerror', () => failed++);
    layer.on('load', () => {
      if (drawn > 0) setFailing(false);
      else if (failed > 0) setFailing(true);
      drawn = 0;
      failed = 0;
    });
    layer.addTo(map);
    return () => {
      layer.remove();
    };
  }, [map, url]);

  useEffect(() => {
    if (!drawnOnce || !map.attributionControl) return;
    const control = map.attributionControl;
    control.addAttribution(credit);
    return () => {
      control.removeAttribution(credit);
    };
  }, [map, drawnOnce, credit]);

  useEffect(() => onFailing(failing), [failing, onFailing]);
  useEffect(() => () => onFailing(false), [onFailing]);
  return null;
}
