/**
 * The platform's date rule (docs/api-spec.md#geocoding): geocode defaulted to true until it was
 * deprecated on 15/05/2013; from that day on, geocoding needs an explicit geocode=true. The day
 * is taken in UTC.
 */
const GEOCODE_DEFAULT_DEPRECATED_AT = Date.UTC(2013, 4, 15);

export function geocodeByDefault(nowMs: number): boolean {
  return nowMs < GEOCODE_DEFAULT_DEPRECATED_AT;
}
