/**
 * Combining marks that Unicode decomposes out of Latin, Greek and Cyrillic letters (the
 * accents of `Á`, `ñ`, `ç`, `ё`). Marks of other scripts (Devanagari vowel signs, Hebrew points,
 * Thai tone marks) carry meaning there and are kept.
 */
const ACCENTS = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

/**
 * The form text filters compare: Unicode case folding for every script, accents folded, and
 * compatibility forms unified (`ﬁ` = `fi`, full-width `Ａ` = `A`). So `ñandú` finds `Ñandú`,
 * `avila` finds `Ávila`, `STRASSE` finds `Straße`, `ΆΘΗΝΑ` finds `Αθήνα`.
 *
 * JavaScript has no case-fold primitive; lower, upper, lower again reaches the full folding
 * (`ẞ` -> `ß` -> `SS` -> `ss`, final `ς` -> `Σ` -> `σ`). NFKD splits accents off their letters;
 * NFC at the end recomposes what was split but kept (Hangul, kana voicing marks).
 *
 * Databases keep keys folded by it: migration 004 of the desktop and 002 of the central filled
 * them with a frozen copy of this function. A change of the fold needs migrations that refold
 * every key (test/core/frozen-migrations.test.ts fails until then).
 */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(ACCENTS, '').toLowerCase().toUpperCase().toLowerCase().normalize('NFC');
}

/**
 * The form two names are compared in to tell whether they are the same name (categories, client
 * applications): folded as above, with runs of white space made one space and the ends trimmed,
 * so `Café  ` and `CAFE` are the same name.
 */
export function sameNameKey(text: string): string {
  return foldText(text).replace(/\s+/gu, ' ').trim();
}
