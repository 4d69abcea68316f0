/** A 1280 x 800 px screen at this zoom, centred on a position: the box Leaflet asks for. */
export function screenBox(lat: number, lng: number, zoom: number): { south: number; north: number; west: number; east: number } {
  const halfLng = (1280 / 2 / 256) * (360 / 2 ** zoom);
  const halfLat = Math.min(85, halfLng * (800 / 1280) * Math.cos((lat * Math.PI) / 180));
  return { south: Math.max(-85, lat - halfLat), north: Math.min(85, lat + halfLat), west: Math.max(-180, lng - halfLng), east: Math.min(180, lng + halfLng) };
}
