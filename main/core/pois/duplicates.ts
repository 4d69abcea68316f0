import { distance as levenshtein } from 'fastest-levenshtein';
import { sameNameKey } from '../../../shared/text-fold.js';
import type { PossibleDuplicate } from '../../../shared/wire.js';
import { boxesAround, metresBetween } from './geo.js';
import type { PoiStore } from './poi-store.js';

/** How far apart two POIs may be and still be one place entered twice (a building, a GPS fix's error). */
export const DUPLICATE_RADIUS_M = 50;
/** Normalised Levenshtein similarity from which two names read as the same (one typo in five letters). */
export const SIMILAR_RATIO = 0.8;
/**
 * A name found whole inside the other (`Prado` in `Museo del Prado`) counts only from this many
 * characters: `Bar` inside `Bar Manolo` says little.
 */
const MIN_CONTAINED = 4;
/**
 * How many POIs of the radius's box are compared: a mall or a market can hold dozens within
 * 50 m; past this many the search would cost more than the warning is worth.
 */
const CANDIDATES = 1_000;

/** Punctuation and symbols say nothing about which place a name means (`Café-Bar "Sol"!` = `cafe bar sol`). */
const PUNCTUATION = /[\p{P}\p{S}]+/gu;

/** The form names are compared in: the project's case and accent folding, punctuation dropped, spaces collapsed. */
export function comparableName(name: string): string {
  return sameNameKey(name.replace(PUNCTUATION, ' '));
}

/**
 * Whether two POI names look like the same place: equal once folded, close by edit distance
 * (ratio >= 0.8 of the longer one), or one found as whole words inside the other.
 */
export function similarNames(a: string, b: string): boolean {
  return similarComparable(comparableName(a), comparableName(b));
}

/** `similarNames` of names already in comparable form (the probe's is folded once, not per candidate). */
function similarComparable(x: string, y: string): boolean {
  if (x === '' || y === '') return false;
  if (x === y) return true;
  const longest = Math.max(x.length, y.length);
  if (1 - levenshtein(x, y) / longest >= SIMILAR_RATIO) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= MIN_CONTAINED && ` ${long} `.includes(` ${short} `);
}

/** How far apart two probes are when they look like one place entered twice (within 50 m, similar names); undefined otherwise. */
export function duplicateDistance(a: DuplicateProbe, b: DuplicateProbe): number | undefined {
  // A cheap latitude test first: 50 m is about 0.00045 degrees of latitude anywhere.
  if (Math.abs(a.lat - b.lat) > 0.0005) return undefined;
  const d = metresBetween(a.lat, a.lng, b.lat, b.lng);
  return d <= DUPLICATE_RADIUS_M && similarNames(a.name, b.name) ? Math.round(d) : undefined;
}

export interface DuplicateProbe {
  lat: number;
  lng: number;
  name: string;
}

/**
 * The client's POIs within 50 m of a POI being added (or edited: `exceptId` leaves it out) whose
 * names are similar, nearest first. Only a warning: the form, add.json and imports flag them and
 * never refuse the add.
 */
export function possibleDuplicates(store: PoiStore, clientId: string, probe: DuplicateProbe, exceptId?: number): PossibleDuplicate[] {
  const key = comparableName(probe.name);
  if (key === '') return [];
  // One R*Tree box query with the names (every add.json runs this: the general nearest search
  // cost 28 µs a check, this about a third of it), then the exact distance.
  const found: PossibleDuplicate[] = [];
  for (const box of boxesAround(probe.lat, probe.lng, DUPLICATE_RADIUS_M)) {
    for (const m of store.markers(clientId, box, CANDIDATES)) {
      if (m.id === exceptId) continue;
      const d = metresBetween(probe.lat, probe.lng, m.lat, m.lng);
      if (d <= DUPLICATE_RADIUS_M && similarComparable(key, comparableName(m.name))) found.push({ id: m.id, name: m.name, distance_m: Math.round(d) });
    }
  }
  return found.sort((a, b) => a.distance_m - b.distance_m || a.id - b.id);
}
