/**
 * A POI's category names as one text (a CSV's `category_names` cell, or a GeoJSON property
 * holding them as text), in one place for the export and the import.
 *
 * Names are joined by "; ", so that a person reading the cell in a spreadsheet sees them as a
 * list. A `;`, `|` or `\` inside a name is written `\;`, `\|` or `\\`: the import splits on `;`
 * and on `|` (people separate names with either), so without the backslash a name such as
 * "Food; drinks" would come back as two categories and a client's own export could not be
 * imported. A backslash before any other character is kept as it is, so a name typed by hand
 * with a backslash (`C:\maps`) reads as typed.
 */

const SPECIAL = /[\\;|]/g;

export const joinCategoryNames = (names: readonly string[]): string => names.map((name) => name.replace(SPECIAL, '\\$&')).join('; ');

/** The names a text lists, trimmed, empty ones left out. */
export function splitCategoryNames(text: string): string[] {
  const names: string[] = [];
  if (!text.includes('\\')) names.push(...text.split(/[;|]/));
  else {
    let name = '';
    for (let i = 0; i < text.length; i++) {
      const c = text[i]!;
      const next = text[i + 1];
      if (c === '\\' && next !== undefined && '\\;|'.includes(next)) {
        name += next;
        i++;
      } else if (c === ';' || c === '|') {
        names.push(name);
        name = '';
      } else name += c;
    }
    names.push(name);
  }
  return names.map((name) => name.trim()).filter((name) => name !== '');
}
