import L from 'leaflet';
import { useEffect } from 'react';
import { useMap } from 'react-leaflet';
import type { MapPackage } from '../../../../shared/maps';
import { packageCredits } from '../attribution';
import type { ViewBox } from './coverage';

export { covers } from './coverage';

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
    const add = (made: L.Layer): void => {
      if (gone) return;
      layer = made;
      countDrawn(map, made, pkg.id);
      made.addTo(map);
      if (made instanceof L.GridLayer) made.setZIndex(order);
    };
    if (pkg.kind === 'raster') {
      // Past its last zoom the last zoom's images are scaled up (Leaflet's maxNativeZoom); below its
      // first, nothing is drawn (as covers() says, and as a vector package does).
      add(L.tileLayer(url, { pane: PACKAGE_PANE, maxNativeZoom: pkg.maxZoom, minNativeZoom: pkg.minZoom, minZoom: pkg.minZoom, maxZoom: 20, bounds: boundsOf(pkg) }));
    } else {
      void import('./vectorLayer').then(({ vectorLayer }) => add(vectorLayer(pkg, url, { pane: PACKAGE_PANE })));
    }
    return () => {
      gone = true;
      layer?.remove();
    };
  }, [map, pkg, url, order]);
  return null;
}

/**
 * The credits of the packages drawn in the view, in the map's attribution: not of every package
 * shown (a Berlin package's credit over Lyon). Leaflet would credit a layer wherever the map is.
 */
function PackageCredits({ credits }: { credits: string[] }) {
  const map = useMap();
  // One dependency for the effect: the credits change only when the packages drawn do.
  const joined = credits.join('\n');
  useEffect(() => {
    const control = map.attributionControl;
    if (!control || joined === '') return;
    const added = joined.split('\n');
    for (const credit of added) control.addAttribution(credit);
    return () => {
      for (const credit of added) control.removeAttribution(credit);
    };
  }, [map, joined]);
  return null;
}

/** The packages shown, in list order (later ones over earlier ones), over the overview and the online tiles; credited where drawn. */
export function PackageLayers({ packages, urlOf, view }: { packages: MapPackage[]; urlOf: (id: string) => string; view: ViewBox | undefined }) {
  return (
    <>
      {packages.map((pkg, i) => (
        <PackageLayer key={pkg.id} pkg={pkg} url={urlOf(pkg.id)} order={i + 1} />
      ))}
      <PackageCredits credits={view ? packageCredits(packages, view) : []} />
    </>
  );
}
