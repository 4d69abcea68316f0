import L from 'leaflet';

/**
 * A POI pin drawn with CSS (no image files: the app works offline and under a strict CSP). The
 * marker's element stays square and upright, holding the rotated drop: on a touch screen its hit
 * area grows to 44 × 44 px around the drop (styles.css), which is drawn the same size.
 */
const PIN_SHAPE = '<span class="poi-pin-shape"></span>';

export const poiIcon = (selected: boolean): L.DivIcon =>
  L.divIcon({ className: selected ? 'poi-pin poi-pin-selected' : 'poi-pin', html: PIN_SHAPE, iconSize: [22, 22], iconAnchor: [11, 22] });

export const draftIcon = L.divIcon({ className: 'poi-pin poi-pin-draft', html: PIN_SHAPE, iconSize: [22, 22], iconAnchor: [11, 22] });

const clusterIcons = new Map<string, L.DivIcon>();

/** A disc with the number of POIs it stands for; the count is a number, never user text. */
export function clusterIcon(count: number): L.DivIcon {
  const size = count < 100 ? 34 : count < 1000 ? 42 : 52;
  const label = count >= 10_000 ? `${Math.round(count / 1000)}k` : String(count);
  const key = `${size}:${label}`;
  let icon = clusterIcons.get(key);
  if (!icon) {
    icon = L.divIcon({ className: 'poi-cluster', html: `<span>${label}</span>`, iconSize: [size, size] });
    clusterIcons.set(key, icon);
  }
  return icon;
}
