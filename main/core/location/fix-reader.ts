import type { Fix } from '../../../shared/location.js';

/** What a receiver's stream is read by, a line at a time: NMEA sentences (nmea-fixes.ts) or gpsd's JSON (gpsd-fixes.ts). */
export interface FixReader {
  read(line: string): void;
  /** The newest fix, or null when the source says it has none. */
  last(): Fix | null;
  /** Lines that were not something it reads. */
  readonly ignored: number;
  /** What gave something: sentence ids or gpsd classes. */
  used(): string[];
}

/**
 * A position a source gave, if it is one on the Earth. 0, 0 is not: parsers give it for empty
 * fields, and no field team stands in the Gulf of Guinea's null island.
 */
export function onEarth(lat: number | undefined, lng: number | undefined): { lat: number; lng: number } | undefined {
  if (lat === undefined || lng === undefined || !Number.isFinite(lat) || !Number.isFinite(lng)) return undefined;
  if (Math.abs(lat) > 90 || Math.abs(lng) > 180 || (lat === 0 && lng === 0)) return undefined;
  return { lat, lng };
}

/** The finite numbers of `values`: a field a source left empty (NaN, absent) stays absent. */
export function numbers<K extends string>(values: Record<K, unknown>): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const key of Object.keys(values) as K[]) {
    const v = values[key];
    if (typeof v === 'number' && Number.isFinite(v)) out[key] = v;
  }
  return out;
}
