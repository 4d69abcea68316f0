import type { Fix } from '../../../shared/location.js';
import { accuracy, elevation } from '../../../shared/schemas/pois.js';

/** What a receiver's stream is read by, a line at a time: NMEA sentences (nmea-fixes.ts) or gpsd's JSON (gpsd-fixes.ts). */
export interface FixReader {
  read(line: string): void;
  /** The newest fix, or null when the source says it has none. */
  last(): Fix | null;
  /** Lines that were not something it reads. */
  readonly ignored: number;
  /** What gave something: sentence ids or gpsd classes. */
  used(): string[];
  /** A longer line is not one of this source's: dropped and counted, never kept (receiver.ts). */
  readonly maxLineChars: number;
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

/**
 * An accuracy above this is no measurement (a receiver's "no estimate", 9999 and the like): left
 * out, so that an unknown accuracy is said as such rather than taken.
 */
export const MAX_ACCURACY_M = 10_000;

/**
 * The numbers of a fix that a POI can hold, by the POI's own rules (shared/schemas/pois.ts); an
 * accuracy must also be above 0 and at most MAX_ACCURACY_M. What a source left empty (NaN,
 * absent) or gave out of range stays absent.
 */
export function fixNumbers(values: { elevation?: number | undefined; accuracy?: number | undefined; vaccuracy?: number | undefined; satellites?: number | undefined }): Partial<Pick<Fix, 'elevation' | 'accuracy' | 'vaccuracy' | 'satellites'>> {
  const out: Partial<Pick<Fix, 'elevation' | 'accuracy' | 'vaccuracy' | 'satellites'>> = {};
  const isAccuracy = (v: number | undefined): v is number => typeof v === 'number' && accuracy.safeParse(v).success && v > 0 && v <= MAX_ACCURACY_M;
  if (typeof values.elevation === 'number' && elevation.safeParse(values.elevation).success) out.elevation = values.elevation;
  if (isAccuracy(values.accuracy)) out.accuracy = values.accuracy;
  if (isAccuracy(values.vaccuracy)) out.vaccuracy = values.vaccuracy;
  const sats = values.satellites;
  if (sats !== undefined && Number.isInteger(sats) && sats >= 0 && sats <= 1_000) out.satellites = sats;
  return out;
}
