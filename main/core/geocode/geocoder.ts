/**
 * Address fields a geocoder can fill for a POI. Every field is optional: a provider sets only
 * what it actually knows, and an empty object means "nothing found".
 */
export interface GeocodedAddress {
  address?: string;
  cross_street?: string;
  city?: string;
  country?: string;
  postal_code?: string;
}

/**
 * Reverse geocoding: coordinates to address fields. Implementations resolve (never reject) for
 * any valid coordinate (latitude in [-90, 90], longitude in [-180, 180]); failures such as a
 * network error or a point in open sea give `{}`.
 */
export interface Geocoder {
  reverse(lat: number, lng: number): Promise<GeocodedAddress>;
}

/** A geocoder whose data can be loaded ahead of the first request. */
export interface Warmable {
  warm(): Promise<void>;
}

export const isWarmable = (value: object): value is Warmable =>
  'warm' in value && typeof value.warm === 'function';

/** Validation shared by the providers; a bad coordinate is a caller bug, not "nothing found". */
export const assertCoordinate = (lat: number, lng: number): void => {
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw new RangeError(`latitude out of range: ${lat}`);
  if (!Number.isFinite(lng) || lng < -180 || lng > 180) throw new RangeError(`longitude out of range: ${lng}`);
};

const FIELDS = ['address', 'cross_street', 'city', 'country', 'postal_code'] as const satisfies readonly (keyof GeocodedAddress)[];

/** Drops unset and blank fields, so that "nothing found" is exactly `{}`. */
export const compactAddress = (fields: GeocodedAddress): GeocodedAddress => {
  const out: GeocodedAddress = {};
  for (const key of FIELDS) {
    const value = fields[key]?.trim();
    if (value !== undefined && value !== '') out[key] = value;
  }
  return out;
};
