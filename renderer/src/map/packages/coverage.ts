import type { MapPackage } from '../../../../shared/maps';

/** A view of the map: its edges in degrees (west past east across the antimeridian) and its zoom. */
export interface ViewBox {
  south: number;
  north: number;
  west: number;
  east: number;
  zoom: number;
}

/** Whether a package draws something in this view at this zoom (it is overzoomed past its last zoom). */
export function covers(pkg: MapPackage, view: ViewBox): boolean {
  if (view.zoom < pkg.minZoom) return false;
  const [w, s, e, n] = pkg.bounds;
  const lngOverlap = view.west <= view.east ? view.west < e && view.east > w : view.west < e || view.east > w;
  return lngOverlap && view.south < n && view.north > s;
}
