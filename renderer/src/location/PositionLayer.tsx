import { Circle, CircleMarker } from 'react-leaflet';
import type { Fix } from '../../../shared/location';

const DOT = { color: '#fff', weight: 2, fillColor: '#1a5fb4', fillOpacity: 1 } as const;
const HALO = { color: '#1a5fb4', weight: 1, fillColor: '#1a5fb4', fillOpacity: 0.12 } as const;

/** Where the source says we are: a dot, and the circle of its accuracy (metres on the ground, so it grows as the map zooms in). */
export function PositionLayer({ fix }: { fix: Fix | null }) {
  if (!fix) return null;
  return (
    <>
      {fix.accuracy !== undefined && <Circle center={[fix.lat, fix.lng]} radius={fix.accuracy} pathOptions={HALO} interactive={false} />}
      <CircleMarker center={[fix.lat, fix.lng]} radius={7} pathOptions={DOT} interactive={false} />
    </>
  );
}
