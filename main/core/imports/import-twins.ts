import { NUMBER_FIELDS, OPTIONAL_TEXT_FIELDS, poiField } from '../../../shared/poi-fields.js';
import type { ValidAddPoi } from '../../../shared/schemas/pois.js';
import { foldText } from '../../../shared/text-fold.js';
import { DUPLICATE_CANDIDATES, DUPLICATE_RADIUS_M, nameProbe, possibleDuplicates, similarComparable, type NameProbe } from '../pois/duplicates.js';
import { boxesAround, metresBetween } from '../pois/geo.js';
import type { PoiRow } from '../pois/poi-row.js';
import type { PoiStore } from '../pois/poi-store.js';

/**
 * Within this distance, a row with the same name (folded: foldText, as the database's name_key) and the same fields as a POI the
 * client has is that POI again: skipped by default, so that importing a file twice changes
 * nothing (a GPS position written to 7 decimals is 1 cm; 1 m allows for rounding by a program).
 */
const IDENTICAL_WITHIN_M = 1;
/** A Check only writes nothing, so it keeps the rows it has read to compare with: at most this many (then they are let go). */
const KEPT_UNWRITTEN = 50_000;
/** POIs of one name within 1 m looked at for an identical row: past a few, the fields decide nothing new. */
const SAME_NAME_LOOKED_AT = 100;
/** Folded names kept by an import: a dense area's names are compared again and again. */
const FOLDED_KEPT = 20_000;
/** Degrees of latitude a cell spans: a little more than 50 m, so a probe's twins are in its cell or the next. */
const CELL_DEG = 0.0005;

interface Entry {
  row: ValidAddPoi;
  where: string;
  /** The name as duplicates are compared (punctuation dropped). */
  comparable: NameProbe;
}

/** A row's twin: a POI of the client (its id) or an earlier row of the file (its line). */
export interface Twin {
  id: number | null;
  name: string;
  distance_m: number;
  where?: string;
}

const cellOf = (lat: number, lng: number): [number, number] => [Math.floor(lat / CELL_DEG), Math.floor(lng / CELL_DEG)];

/** Whether a row would write exactly what a stored POI holds (the position within IDENTICAL_WITHIN_M, names folded). */
function sameFieldsAsRow(row: ValidAddPoi, poi: PoiRow): boolean {
  for (const wire of [...OPTIONAL_TEXT_FIELDS, ...NUMBER_FIELDS]) {
    if ((row[wire] ?? null) !== (poi[poiField(wire).column] ?? null)) return false;
  }
  return sameCategories(row.categories, JSON.parse(poi.category_ids) as number[]);
}

function sameFieldsAsEntry(row: ValidAddPoi, other: ValidAddPoi): boolean {
  for (const wire of [...OPTIONAL_TEXT_FIELDS, ...NUMBER_FIELDS]) if ((row[wire] ?? null) !== (other[wire] ?? null)) return false;
  return sameCategories(row.categories, other.categories);
}

const sameCategories = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && [...a].sort().join() === [...b].sort().join();

/**
 * What an import compares each row with, in near-linear time: the client's POIs through the
 * R*Tree, and the file's rows not written yet through a grid of ~50 m cells, names folded once
 * per row (not once per comparison), each probe comparing at most DUPLICATE_CANDIDATES rows.
 * Before, each row was compared with every pending row of its batch, both names folded each
 * time: 1,000 long names at one point held the event loop 10.5 s.
 */
export class ImportTwins {
  private readonly cells = new Map<string, Entry[]>();
  /** The same rows by their name folded (foldText, as the database's name_key): identical rows are looked up by name. */
  private readonly byName = new Map<string, Entry[]>();
  private unwritten = 0;
  private readonly foldedNames = new Map<string, NameProbe>();

  constructor(
    private readonly store: PoiStore,
    private readonly clientId: string,
    /** A Check only: rows are never written, so they stay here to be compared with (up to a bound). */
    private readonly dryRun: boolean,
  ) {}

  /** A row read, to compare the next ones with until it is written. */
  add(row: ValidAddPoi, where: string): void {
    if (this.dryRun && this.unwritten >= KEPT_UNWRITTEN) this.written();
    const [y, x] = cellOf(row.lat, row.lng);
    const key = `${y}:${x}`;
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = []));
    const entry = { row, where, comparable: this.comparable(row.name) };
    cell.push(entry);
    const folded = foldText(row.name);
    let named = this.byName.get(folded);
    if (!named) this.byName.set(folded, (named = []));
    named.push(entry);
    this.unwritten++;
  }

  /** The rows added so far are in the database now (a real import's batch was written). */
  written(): void {
    this.cells.clear();
    this.byName.clear();
    this.unwritten = 0;
  }

  /** A POI of the client, or a row of the file, that this row repeats exactly; undefined when none. */
  identical(row: ValidAddPoi): Twin | undefined {
    const folded = foldText(row.name);
    for (const box of boxesAround(row.lat, row.lng, IDENTICAL_WITHIN_M)) {
      for (const m of this.store.markersNamed(this.clientId, box, folded, SAME_NAME_LOOKED_AT)) {
        const d = metresBetween(row.lat, row.lng, m.lat, m.lng);
        const poi = d <= IDENTICAL_WITHIN_M ? this.store.get(this.clientId, m.id) : undefined;
        if (poi && sameFieldsAsRow(row, poi)) return { id: m.id, name: m.name, distance_m: Math.round(d) };
      }
    }
    let looked = 0;
    for (const entry of this.byName.get(folded) ?? []) {
      if (++looked > SAME_NAME_LOOKED_AT) break;
      const d = metresBetween(row.lat, row.lng, entry.row.lat, entry.row.lng);
      if (d <= IDENTICAL_WITHIN_M && sameFieldsAsEntry(row, entry.row)) return { id: null, name: entry.row.name, distance_m: Math.round(d), where: entry.where };
    }
    return undefined;
  }

  /** A POI of the client, or a row of the file, within 50 m with a similar name; undefined when none. */
  twin(row: ValidAddPoi): Twin | undefined {
    const stored = possibleDuplicates(this.store, this.clientId, row, { fold: (name) => this.comparable(name), first: true })[0];
    if (stored) return stored;
    const key = this.comparable(row.name);
    if (key.key === '') return undefined;
    let compared = 0;
    for (const entry of this.near(row.lat, row.lng)) {
      if (++compared > DUPLICATE_CANDIDATES) break;
      // A cheap latitude test first: 50 m is about 0.00045 degrees of latitude anywhere.
      if (Math.abs(entry.row.lat - row.lat) > CELL_DEG) continue;
      const d = metresBetween(row.lat, row.lng, entry.row.lat, entry.row.lng);
      if (d <= DUPLICATE_RADIUS_M && similarComparable(key, entry.comparable)) return { id: null, name: entry.row.name, distance_m: Math.round(d), where: entry.where };
    }
    return undefined;
  }

  /** The unwritten rows in the cells around a point (longitude cells narrow toward the poles, so more of them). */
  private *near(lat: number, lng: number): Generator<Entry> {
    const [y, x] = cellOf(lat, lng);
    const across = Math.min(50, Math.ceil(1 / Math.max(Math.cos((lat * Math.PI) / 180), 0.02)));
    for (let dy = -1; dy <= 1; dy++) {
      for (let dx = -across; dx <= across; dx++) {
        const cell = this.cells.get(`${y + dy}:${x + dx}`);
        if (cell) yield* cell;
      }
    }
  }

  private comparable(name: string): NameProbe {
    let folded = this.foldedNames.get(name);
    if (folded === undefined) {
      folded = nameProbe(name);
      if (this.foldedNames.size >= FOLDED_KEPT) this.foldedNames.clear();
      this.foldedNames.set(name, folded);
    }
    return folded;
  }
}
