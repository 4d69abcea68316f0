import type { OpenCore as Core } from '../support/core.js';
import { foldText } from '../../shared/text-fold.js';
import { categoryIds } from '../../main/core/pois/poi-row.js';
import { prng } from './stats.js';

export interface Filled {
  clientId: string;
  /** Positions of some POIs, to aim queries where the data is. */
  samples: Array<[number, number]>;
  /** The centres the clustered 70 % are spread around. */
  cities: Array<[number, number]>;
  fillMs: number;
}

/**
 * Fills `count` POIs of a new client (or of `clientId`) over Europe: 70 % around 300 "cities" (normal spread of ~5 km), 30 %
 * scattered, each with one or two system categories. Rows are inserted with the store's columns
 * (folded text keys included) and go through the real triggers (R*Tree, category links, map grid, change log), 10,000 per
 * transaction.
 */
export function fillPois(core: Core, count: number, seed = 42, progress?: (done: number) => void, clientId = core.clients.create({ name: 'bench' }).client_id): Filled {
  const rnd = prng(seed);
  const gauss = (): number => Math.sqrt(-2 * Math.log(rnd() || 1e-12)) * Math.cos(2 * Math.PI * rnd());
  const cities = Array.from({ length: 300 }, () => [36 + rnd() * 24, -10 + rnd() * 40] as [number, number]);
  const insert = core.db.prepare(
    `INSERT INTO pois (client_id, name, description, lat, lng, city, country, category_ids, registered_at, updated_at, name_key, description_key, city_key, country_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const samples: Array<[number, number]> = [];
  const t0 = performance.now();
  const batch = core.db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      let lat: number;
      let lng: number;
      let city = -1;
      if (rnd() < 0.7) {
        city = Math.floor(rnd() * cities.length);
        const [clat, clng] = cities[city]!;
        lat = Math.max(-90, Math.min(90, clat + gauss() * 0.045));
        lng = Math.max(-180, Math.min(180, clng + (gauss() * 0.045) / Math.cos((clat * Math.PI) / 180)));
      } else {
        lat = 36 + rnd() * 24;
        lng = -10 + rnd() * 40;
      }
      const name = `POI ${i}`;
      const description = i % 3 === 0 ? `Description of point ${i}` : null;
      const cityName = city >= 0 ? `City ${city}` : null;
      const fold = (text: string | null): string | null => (text === null ? null : foldText(text));
      const categories = categoryIds(i % 4 === 0 ? [1 + (i % 30), 1 + ((i + 7) % 30)] : [1 + (i % 30)]);
      insert.run(clientId, name, description, lat, lng, cityName, 'Europe', categories, 0, 0, foldText(name), fold(description), fold(cityName), foldText('Europe'));
      if (i % 500 === 0) samples.push([lat, lng]);
    }
  });
  for (let from = 0; from < count; from += 10_000) {
    batch(from, Math.min(count, from + 10_000));
    if (progress && (from + 10_000) % 1_000_000 === 0) progress(from + 10_000);
  }
  return { clientId, samples, cities, fillMs: performance.now() - t0 };
}
