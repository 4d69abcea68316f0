import { distance } from 'geokdbush';

/** A latitude/longitude box; west > east never happens: boxes across the antimeridian are split. */
export interface Box {
  south: number;
  north: number;
  west: number;
  east: number;
}

/** geokdbush's haversine uses this mean Earth radius, in km. */
const EARTH_RADIUS_M = 6_371_000;
const DEG = 180 / Math.PI;

/** Great-circle distance in metres. */
export function metresBetween(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return distance(lng1, lat1, lng2, lat2) * 1000;
}

/**
 * The boxes that contain every point within `radius` metres of (lat, lng) on the sphere: one box,
 * two when the circle crosses the antimeridian, the full longitude range when it reaches a pole.
 */
export function boxesAround(lat: number, lng: number, radius: number): Box[] {
  const angular = radius / EARTH_RADIUS_M;
  const south = lat - angular * DEG;
  const north = lat + angular * DEG;
  if (south <= -90 || north >= 90 || angular >= Math.PI / 2) {
    return [{ south: Math.max(-90, south), north: Math.min(90, north), west: -180, east: 180 }];
  }
  // The widest longitude reached by a spherical cap of this angular radius.
  const ratio = Math.sin(angular) / Math.cos(lat / DEG);
  if (ratio >= 1) return [{ south, north, west: -180, east: 180 }];
  const dLng = Math.asin(ratio) * DEG;
  const west = lng - dLng;
  const east = lng + dLng;
  if (west < -180) return [{ south, north, west: west + 360, east: 180 }, { south, north, west: -180, east }];
  if (east > 180) return [{ south, north, west, east: 180 }, { south, north, west: -180, east: east - 360 }];
  return [{ south, north, west, east }];
}

/** A viewport that crosses the antimeridian (west > east) as one or two plain boxes. */
export function splitViewport(box: Box): Box[] {
  if (box.west <= box.east) return [box];
  return [
    { ...box, east: 180 },
    { ...box, west: -180 },
  ];
}
