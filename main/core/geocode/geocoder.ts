import { TEXT_LIMITS } from '../../../shared/schemas/pois.js';

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

/** Who gave each field of an answer, in words for the POI's history: "Nominatim", "offline places", "offline map package San Francisco". */
export type AddressSources = Partial<Record<keyof GeocodedAddress, string>>;

export interface SourcedAddress {
  fields: GeocodedAddress;
  sources: AddressSources;
  /**
   * The named roads near the point, nearest first, each with its source (the map packages'
   * answer only): where a cross street is chosen when the address is another source's.
   */
  roads?: ReadonlyArray<{ name: string; source: string }>;
}

/** A geocoder that can say where each field of its answer came from. */
export interface SourcedGeocoder extends Geocoder {
  reverseSourced(lat: number, lng: number): Promise<SourcedAddress>;
}

const isSourced = (geocoder: Geocoder): geocoder is SourcedGeocoder => 'reverseSourced' in geocoder && typeof geocoder.reverseSourced === 'function';

/** The answer and its sources; a geocoder that cannot say (a test's stand-in) names none. */
export const reverseSourced = async (geocoder: Geocoder, lat: number, lng: number): Promise<SourcedAddress> =>
  isSourced(geocoder) ? geocoder.reverseSourced(lat, lng) : { fields: await geocoder.reverse(lat, lng), sources: {} };

/** Every field of `fields` that is set, named as given by `source`. */
export const sourcedBy = (fields: GeocodedAddress, source: string): SourcedAddress => ({
  fields,
  sources: Object.fromEntries(Object.keys(fields).map((key) => [key, source])),
});

export const isWarmable = (value: object): value is Warmable =>
  'warm' in value && typeof value.warm === 'function';

/** Validation shared by the providers; a bad coordinate is a caller bug, not "nothing found". */
export const assertCoordinate = (lat: number, lng: number): void => {
  if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw new RangeError(`latitude out of range: ${lat}`);
  if (!Number.isFinite(lng) || lng < -180 || lng > 180) throw new RangeError(`longitude out of range: ${lng}`);
};

const FIELDS = ['address', 'cross_street', 'city', 'country', 'postal_code'] as const satisfies readonly (keyof GeocodedAddress)[];

/** At most `max` code points (a field's limit counts characters, docs/api-spec.md#add-a-poi). */
const clipped = (value: string, max: number): string => (value.length <= max ? value : [...value].slice(0, max).join('').trim());

/**
 * Drops unset and blank fields, so that "nothing found" is exactly `{}`; what is left is valid
 * Unicode within the field's limit, as the POI's rules ask of a value a request gives (a street
 * name read from a stranger's map package, or a server's answer, is not checked anywhere else).
 */
export const compactAddress = (fields: GeocodedAddress): GeocodedAddress => {
  const out: GeocodedAddress = {};
  for (const key of FIELDS) {
    const value = fields[key]?.toWellFormed().trim();
    if (value !== undefined && value !== '') out[key] = clipped(value, TEXT_LIMITS[key]);
  }
  return out;
};

/** `compactAddress`, keeping the sources of the fields left. */
export const compactSourced = ({ fields, sources, roads }: SourcedAddress): SourcedAddress => {
  const compact = compactAddress(fields);
  return { fields: compact, sources: Object.fromEntries(Object.entries(sources).filter(([key]) => key in compact)), ...(roads === undefined ? {} : { roads }) };
};
