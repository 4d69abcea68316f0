import L from 'leaflet';
import { useEffect } from 'react';
import { useMap } from 'react-leaflet';
import type { MapPackage } from '../../../../shared/maps';
import { attributionHtml } from '../attribution';

export const PACKAGE_PANE = 'packages';

const boundsOf = (pkg: MapPackage): L.LatLngBounds => L.latLngBounds([pkg.bounds[1], pkg.bounds[0]], [pkg.bounds[3], pkg.bounds[2]]);

/**
 * Marks the map's container with the tiles each package has drawn, and the moments every tile
 * of the view is (`poi-package-complete`): the tests and `npm run bench` wait on them.
 */
function countDrawn(map: L.Map, layer: L.Layer, id: string): void {
  let drawn = 0;
  layer.on('tileload', () => {
    drawn++;
    map.getContainer().dataset[`drawn${id.replace(/-/g, '')}`] = String(drawn);
    performance.mark(`poi-package-drawn:${id}`);
  });
  layer.on('load', () => performance.mark('poi-package-complete'));
}

/** One package as a Leaflet layer: images for raster packages, the vector renderer for the others. */
function PackageLayer({ pkg, url, order }: { pkg: MapPackage; url: string; order: number }) {
  const map = useMap();
  useEffect(() => {
    let layer: L.Layer | undefined;
    let gone = false;
    const attribution = attributionHtml({ tileAttribution: pkg.attribution, tileAttributionUrl: pkg.attributionUrl });
    const add = (made: L.Layer): void => {
      if (gone) return;
      layer = made;
      countDrawn(map, made, pkg.id);
      made.addTo(map);
      if (made instanceof L.GridLayer) made.setZIndex(order);
    };
    if (pkg.kind === 'raster') {
      // Past its last zoom the last zoom's images are scaled up (Leaflet's maxNativeZoom).
      add(L.tileLayer(url, { pane: PACKAGE_PANE, attribution, maxNativeZoom: pkg.maxZoom, minNativeZoom: pkg.minZoom, minZoom: 0, maxZoom: 20, bounds: boundsOf(pkg) }));
    } else {
      void import('./vectorLayer').then(({ vectorLayer }) => add(vectorLayer(pkg, url, { pane: PACKAGE_PANE, attribution })));
    }
    return () => {
      gone = true;
      layer?.remove();
    };
  }, [map, pkg, url, order]);
  return null;
}

/** The packages shown, in list order (later ones over earlier ones), over the overview and the online tiles. */
export function PackageLayers({ packages, urlOf }: { packages: MapPackage[]; urlOf: (id: string) => string }) {
  return (
    <>
      {packages.map((pkg, i) => (
        <PackageLayer key={pkg.id} pkg={pkg} url={urlOf(pkg.id)} order={i + 1} />
      ))}
    </>
  );
}

/** Whether a package draws something in this view at this zoom (it is overzoomed past its last zoom). */
export function covers(pkg: MapPackage, view: { south: number; north: number; west: number; east: number; zoom: number }): boolean {
  if (view.zoom < pkg.minZoom) return false;
  const [w, s, e, n] = pkg.bounds;
  const lngOverlap = view.west <= view.east ? view.west < e && view.east > w : view.west < e || view.east > w;
  return lngOverlap && view.south < n && view.north > s;
}
