import type { PoiReply } from '../../../shared/wire.js';
import type { FormatWriter } from './format.js';
import { geojsonRecords } from './geojson-reader.js';

function feature(p: PoiReply): string {
  const { latitude, longitude, ...properties } = p;
  return JSON.stringify({ type: 'Feature', id: p.id, geometry: { type: 'Point', coordinates: [longitude, latitude] }, properties: { ...properties, latitude, longitude } });
}

/** A FeatureCollection of points, whose properties are the API's reply fields (categories as `{Id, Description}`). */
const write: FormatWriter = async function* (pages) {
  yield '{"type":"FeatureCollection","features":[\n';
  let first = true;
  for await (const page of pages) {
    if (page.length === 0) continue;
    yield `${first ? '' : ',\n'}${page.map(feature).join(',\n')}`;
    first = false;
  }
  yield '\n]}\n';
};

export const geojson = { read: geojsonRecords, write };
