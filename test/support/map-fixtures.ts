import { fromGeojsonVt } from '@maplibre/vt-pbf';
import type { FeatureCollection } from 'geojson';
import GeoJSONVT from 'geojson-vt';
import { PNG } from 'pngjs';
import type { TileEntry } from '../../main/build/map-package-writer.js';

/** Tile x/y of a point at zoom z (XYZ rows, from the north). */
export function tileAt(lng: number, lat: number, z: number): { x: number; y: number } {
  const n = 2 ** z;
  const rad = (lat * Math.PI) / 180;
  return { x: Math.floor(((lng + 180) / 360) * n), y: Math.floor(((1 - Math.log(Math.tan(rad) + 1 / Math.cos(rad)) / Math.PI) / 2) * n) };
}

/** Every tile of zooms lo..hi around a point, `radius` tiles each side at each zoom. */
export function tilesAround(lng: number, lat: number, lo: number, hi: number, radius = 1): Array<{ z: number; x: number; y: number }> {
  const out: Array<{ z: number; x: number; y: number }> = [];
  for (let z = lo; z <= hi; z++) {
    const c = tileAt(lng, lat, z);
    for (let dx = -radius; dx <= radius; dx++) for (let dy = -radius; dy <= radius; dy++) out.push({ z, x: c.x + dx, y: c.y + dy });
  }
  return out;
}

/** A solid PNG tile of one colour ([r, g, b]), so a test can tell which package drew a pixel. */
export function solidPng(rgb: [number, number, number]): Uint8Array {
  const png = new PNG({ width: 256, height: 256 });
  for (let i = 0; i < png.data.length; i += 4) {
    png.data[i] = rgb[0];
    png.data[i + 1] = rgb[1];
    png.data[i + 2] = rgb[2];
    png.data[i + 3] = 255;
  }
  return PNG.sync.write(png);
}

export const rasterTiles = (coords: Array<{ z: number; x: number; y: number }>, rgb: [number, number, number]): TileEntry[] => {
  const data = solidPng(rgb);
  return coords.map((c) => ({ ...c, data }));
};

/** Vector tiles cut from GeoJSON layers with geojson-vt and encoded with vt-pbf. */
export function vectorTiles(layers: Record<string, FeatureCollection>, coords: Array<{ z: number; x: number; y: number }>): TileEntry[] {
  const maxZoom = Math.max(...coords.map((c) => c.z));
  const indexes = Object.entries(layers).map(([name, fc]) => [name, new GeoJSONVT(fc, { maxZoom, indexMaxZoom: maxZoom })] as const);
  const out: TileEntry[] = [];
  for (const c of coords) {
    const cut = Object.fromEntries(indexes.flatMap(([name, index]) => {
      const tile = index.getTile(c.z, c.x, c.y);
      return tile ? [[name, tile]] : [];
    }));
    if (Object.keys(cut).length > 0) out.push({ ...c, data: fromGeojsonVt(cut) });
  }
  return out;
}

/** A few named streets and a lake around a point: enough for a test to see roads and names drawn. */
export function streetsAround(lng: number, lat: number): Record<string, FeatureCollection> {
  const d = 0.002;
  const street = (name: string, coords: Array<[number, number]>): GeoJSON.Feature => ({
    type: 'Feature',
    properties: { name, class: 'street' },
    geometry: { type: 'LineString', coordinates: coords.map(([x, y]) => [lng + x * d, lat + y * d]) },
  });
  return {
    road: {
      type: 'FeatureCollection',
      features: [street('Fixture Street', [[-3, 0], [3, 0]]), street('Test Avenue', [[0, -3], [0, 3]])],
    },
    // Mapbox Streets keeps the names of roads in a layer of their own.
    road_label: {
      type: 'FeatureCollection',
      features: [street('Fixture Street', [[-3, 0], [3, 0]]), street('Test Avenue', [[0, -3], [0, 3]])],
    },
    water: {
      type: 'FeatureCollection',
      features: [
        {
          type: 'Feature',
          properties: { name: 'Fixture Lake' },
          geometry: { type: 'Polygon', coordinates: [[[lng + d, lat + d], [lng + 2 * d, lat + d], [lng + 2 * d, lat + 2 * d], [lng + d, lat + 2 * d], [lng + d, lat + d]]] },
        },
      ],
    },
  };
}
