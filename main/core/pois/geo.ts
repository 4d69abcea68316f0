import { distance } from 'geokdbush';

/** A latitude/longitude box; west > east never happens: boxes across the antimeridian are split. */
export interface Box {
  south: number;
  north: number;
  west: number;
  east: number;
}

/** geokdbush's haversine uses this mean Earth radius, in km. */
export const EARTH_RADIUS_M = 6_371_000;
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

const RAD = Math.PI / 180;

/** Great-circle distance in metres between two points, both in degrees (haversine). */
function haversineM(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLng / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

/** The distance from (lat, lng0) to the nearest point of the meridian `lng` between south and north. */
function metresToMeridian(lat: number, lng0: number, lng: number, south: number, north: number): number {
  const dLng = (lng - lng0) * RAD;
  // The foot of the perpendicular from the point to the meridian's great circle; the distance
  // along an arc has one minimum, at the foot or at an end.
  const foot = Math.atan2(Math.sin(lat * RAD), Math.cos(lat * RAD) * Math.cos(dLng)) / RAD;
  return Math.min(
    haversineM(lat, lng0, Math.max(south, Math.min(north, foot)), lng),
    haversineM(lat, lng0, south, lng),
    haversineM(lat, lng0, north, lng),
  );
}

/**
 * The least great-circle distance, in metres, from (lat, lng) to any point of a box that does not
 * cross the antimeridian: 0 inside it; along the point's meridian when the point is within the
 * box's longitudes (the nearest point of a parallel is straight north or south); else to the
 * nearer of the box's two meridian edges.
 */
export function metresToBox(lat: number, lng: number, box: Box): number {
  if (lng >= box.west && lng <= box.east) {
    if (lat >= box.south && lat <= box.north) return 0;
    return Math.abs(lat - (lat > box.north ? box.north : box.south)) * RAD * EARTH_RADIUS_M;
  }
  return Math.min(metresToMeridian(lat, lng, box.west, box.south, box.north), metresToMeridian(lat, lng, box.east, box.south, box.north));
}
