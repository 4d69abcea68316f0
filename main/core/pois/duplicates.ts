import { distance as levenshtein } from 'fastest-levenshtein';
import { sameNameKey } from '../../../shared/text-fold.js';
import type { PossibleDuplicate } from '../../../shared/wire.js';
import { boxesAround, metresBetween } from './geo.js';
import type { PoiStore } from './poi-store.js';

/** How far apart two POIs may be and still be one place entered twice (a building, a GPS fix's error). */
export const DUPLICATE_RADIUS_M = 50;
/** Normalised Levenshtein similarity from which two names read as the same (one typo in five letters). */
const SIMILAR_RATIO = 0.8;
/**
 * A name found whole inside the other (`Prado` in `Museo del Prado`) counts only from this many
 * characters: `Bar` inside `Bar Manolo` says little.
 */
const MIN_CONTAINED = 4;
/**
 * How many POIs of the radius's box are compared: a mall or a market can hold dozens within
 * 50 m; past this many the search would cost more than the warning is worth.
 */
export const DUPLICATE_CANDIDATES = 1_000;

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
  return similarComparable(nameProbe(a), nameProbe(b));
}

/** A name as it is compared: in comparable form, and its trigrams (sorted hashes), computed once per name. */
export interface NameProbe {
  key: string;
  grams: Int32Array;
}

export function nameProbe(name: string): NameProbe {
  const key = comparableName(name);
  const grams = new Int32Array(Math.max(0, key.length - 2));
  for (let i = 0; i < grams.length; i++) grams[i] = (key.charCodeAt(i) * 65_599 + key.charCodeAt(i + 1)) * 65_599 + key.charCodeAt(i + 2);
  return { key, grams: grams.sort() };
}

/** Trigrams two names share, counted with repeats (a hash collision only counts one more: never fewer). */
function sharedGrams(a: Int32Array, b: Int32Array): number {
  let shared = 0;
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      shared++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return shared;
}

/**
 * `similarNames` of names already as probes (each folded once, not per comparison). Two cheap
 * bounds come before the edit distance, which costs ~30 µs for two 255-character names: the
 * distance is at least the difference of lengths, and names within `k` edits share at least
 * `longest - 2 - 3k` trigrams (the q-gram lemma), so most unlike names are told apart in a
 * few hundred steps.
 */
export function similarComparable(a: NameProbe, b: NameProbe): boolean {
  const x = a.key;
  const y = b.key;
  if (x === '' || y === '') return false;
  if (x === y) return true;
  const longest = Math.max(x.length, y.length);
  // The most edits that still leave a ratio of SIMILAR_RATIO (the epsilon: 1 - 0.8 is 0.19999... in floating point).
  const edits = Math.floor(longest * (1 - SIMILAR_RATIO) + 1e-9);
  const close = Math.abs(x.length - y.length) <= edits && sharedGrams(a.grams, b.grams) >= longest - 2 - 3 * edits;
  if (close && levenshtein(x, y) <= edits) return true;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  return short.length >= MIN_CONTAINED && ` ${long} `.includes(` ${short} `);
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
export function possibleDuplicates(
  store: PoiStore,
  clientId: string,
  probe: DuplicateProbe,
  { exceptId, radius = DUPLICATE_RADIUS_M, fold = nameProbe, first = false }: { exceptId?: number; radius?: number; fold?: (name: string) => NameProbe; first?: boolean } = {},
): PossibleDuplicate[] {
  const key = fold(probe.name);
  if (key.key === '') return [];
  // One R*Tree box query with the names (every add.json runs this: the general nearest search
  // cost 28 µs a check, this about a third of it), then the exact distance.
  const found: PossibleDuplicate[] = [];
  for (const box of boxesAround(probe.lat, probe.lng, radius)) {
    // `first`: one is enough (an import flags a row, it does not list all its likes), and reading stops there.
    const markers = first ? store.markersOneByOne(clientId, box, DUPLICATE_CANDIDATES) : store.markers(clientId, box, DUPLICATE_CANDIDATES);
    for (const m of markers) {
      if (m.id === exceptId) continue;
      const d = metresBetween(probe.lat, probe.lng, m.lat, m.lng);
      if (d <= radius && similarComparable(key, fold(m.name))) {
        found.push({ id: m.id, name: m.name, distance_m: Math.round(d) });
        // Leaving the loop closes the statement's cursor (for...of calls the iterator's return).
        if (first) return found;
      }
    }
  }
  return found.sort((a, b) => a.distance_m - b.distance_m || a.id - b.id);
}
