import { CompositeGeocoder } from './composite.js';
import { NominatimGeocoder } from './nominatim.js';
import { OfflineGeocoder } from './offline.js';
import { StreetGeocoder, type StreetTiles } from './streets.js';

export { CompositeGeocoder } from './composite.js';
export { isWarmable, reverseSourced } from './geocoder.js';
export type { AddressSources, GeocodedAddress, Geocoder, SourcedAddress } from './geocoder.js';
export { MAX_STREET_FEATURES, MAX_STREET_TILE_BYTES, STREET_CACHE_BYTES, StreetGeocoder, type StreetStats, type StreetTiles } from './streets.js';
export { DEFAULT_MIN_INTERVAL_MS, DEFAULT_TIMEOUT_MS, NominatimGeocoder } from './nominatim.js';
export { largestPlaces, OfflineGeocoder, offlineLoadStats } from './offline.js';

export interface GeocoderOptions {
  /** Base URL of a Nominatim server; online geocoding is off unless this is set. */
  nominatimUrl?: string;
  /** Longest wait for the online provider, in milliseconds (default 1500). */
  timeoutMs?: number;
}

/**
 * The service's geocoder: offline city and country always, plus street address and postal code
 * from Nominatim when a server is configured, else from the offline map packages' streets when
 * `packages` are given (the core's, main/core/maps/packages.ts). Call `warm()` once start-up is
 * done to build the offline index before the first request needs it.
 */
export const createGeocoder = (options: GeocoderOptions = {}, packages?: StreetTiles): CompositeGeocoder => {
  const online =
    options.nominatimUrl === undefined || options.nominatimUrl === ''
      ? undefined
      : new NominatimGeocoder({ baseUrl: options.nominatimUrl, timeoutMs: options.timeoutMs });
  return new CompositeGeocoder(new OfflineGeocoder(), online, packages && new StreetGeocoder(packages));
};
