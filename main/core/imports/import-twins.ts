import { NUMBER_FIELDS, OPTIONAL_TEXT_FIELDS, poiField } from '../../../shared/poi-fields.js';
import type { ValidAddPoi } from '../../../shared/schemas/pois.js';
import { foldText } from '../../../shared/text-fold.js';
import { DUPLICATE_CANDIDATES, DUPLICATE_RADIUS_M, nameProbe, possibleDuplicates, similarComparable, type NameProbe } from '../pois/duplicates.js';
import { boxesAround, metresBetween, type Box } from '../pois/geo.js';
import type { PoiRow } from '../pois/poi-row.js';
import type { Marker, PoiStore } from '../pois/poi-store.js';

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
/**
 * Degrees a tile of a batch spans (about 1 km): the client's POIs around a batch's rows are read
 * by one R*Tree query per tile the rows fall in, not one per row (docs/imports.md).
 */
const TILE_DEG = 0.01;
/**
 * A tile's query reads at most this many POIs (~1-2 ms: a batch's turn stays short); past it (a
 * dense tile), its rows are looked up one by one, as before.
 */
const TILE_CANDIDATES = 2_000;

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

function addToCell<T>(cells: Map<string, T[]>, lat: number, lng: number, item: T): void {
  const [y, x] = cellOf(lat, lng);
  const key = `${y}:${x}`;
  const cell = cells.get(key);
  if (cell) cell.push(item);
  else cells.set(key, [item]);
}

function cellsOf<T>(items: readonly T[], at: (item: T) => { lat: number; lng: number }): Map<string, T[]> {
  const cells = new Map<string, T[]>();
  for (const item of items) addToCell(cells, at(item).lat, at(item).lng, item);
  return cells;
}

/** What `cells` hold around a point (longitude cells narrow toward the poles, so more of them). */
function* around<T>(cells: ReadonlyMap<string, T[]>, lat: number, lng: number): Generator<T> {
  const [y, x] = cellOf(lat, lng);
  const across = Math.min(50, Math.ceil(1 / Math.max(Math.cos((lat * Math.PI) / 180), 0.02)));
  for (let dy = -1; dy <= 1; dy++) {
    for (let dx = -across; dx <= across; dx++) {
      const cell = cells.get(`${y + dy}:${x + dx}`);
      if (cell) yield* cell;
    }
  }
}

const unionOf = (boxes: readonly Box[]): Box => ({
  south: Math.min(...boxes.map((b) => b.south)),
  north: Math.max(...boxes.map((b) => b.north)),
  west: Math.min(...boxes.map((b) => b.west)),
  east: Math.max(...boxes.map((b) => b.east)),
});

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
    const entry = { row, where, comparable: this.comparable(row.name) };
    addToCell(this.cells, row.lat, row.lng, entry);
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
    return this.storedTwin(row) ?? this.fileTwin(row);
  }

  /** A POI of the client within 50 m with a similar name, by its own R*Tree query. */
  private storedTwin(row: ValidAddPoi): Twin | undefined {
    return possibleDuplicates(this.store, this.clientId, row, { fold: (name) => this.comparable(name), first: true })[0];
  }

  /**
   * `twin` of each row of a batch not written yet, the client's POIs read by one R*Tree query
   * per tile of TILE_DEG the rows fall in (a query per row was 20 % of an import's time); a row
   * whose own rows-of-the-file twin (`fileTwins`, taken when it was read) is used when no POI is.
   */
  batchTwins(rows: readonly ValidAddPoi[], fileTwins: ReadonlyArray<Twin | undefined>): Array<Twin | undefined> {
    const found: Array<Twin | undefined> = [];
    const tiles = new Map<string, number[]>();
    rows.forEach((row, i) => {
      const key = `${Math.floor(row.lat / TILE_DEG)}:${Math.floor(row.lng / TILE_DEG)}`;
      const tile = tiles.get(key);
      if (tile) tile.push(i);
      else tiles.set(key, [i]);
    });
    for (const members of tiles.values()) {
      const boxes = members.map((i) => boxesAround(rows[i]!.lat, rows[i]!.lng, DUPLICATE_RADIUS_M));
      // Near a pole or the antimeridian a row's circle is more than one box: those rows ask alone.
      const markers = boxes.every((b) => b.length === 1) ? this.store.markers(this.clientId, unionOf(boxes.map((b) => b[0]!)), TILE_CANDIDATES) : undefined;
      const cells = markers && markers.length < TILE_CANDIDATES ? cellsOf(markers, (m) => m) : undefined;
      for (const i of members) found[i] = (cells ? this.nearestSimilar(rows[i]!, cells) : this.storedTwin(rows[i]!)) ?? fileTwins[i];
    }
    return found;
  }

  /** The nearest of the client's POIs in `cells` within 50 m with a similar name (at most DUPLICATE_CANDIDATES compared, as one query would). */
  private nearestSimilar(row: ValidAddPoi, cells: ReadonlyMap<string, Marker[]>): Twin | undefined {
    const key = this.comparable(row.name);
    if (key.key === '') return undefined;
    let best: { marker: Marker; d: number } | undefined;
    let compared = 0;
    for (const m of around(cells, row.lat, row.lng)) {
      if (++compared > DUPLICATE_CANDIDATES) break;
      if (Math.abs(m.lat - row.lat) > CELL_DEG) continue;
      const d = metresBetween(row.lat, row.lng, m.lat, m.lng);
      if (d > DUPLICATE_RADIUS_M || (best && (d > best.d || (d === best.d && m.id > best.marker.id)))) continue;
      if (similarComparable(key, this.comparable(m.name))) best = { marker: m, d };
    }
    return best && { id: best.marker.id, name: best.marker.name, distance_m: Math.round(best.d) };
  }

  /** A row of the file read before, not written yet, within 50 m with a similar name; undefined when none. */
  fileTwin(row: ValidAddPoi): Twin | undefined {
    const key = this.comparable(row.name);
    if (key.key === '') return undefined;
    let compared = 0;
    for (const entry of around(this.cells, row.lat, row.lng)) {
      if (++compared > DUPLICATE_CANDIDATES) break;
      // A cheap latitude test first: 50 m is about 0.00045 degrees of latitude anywhere.
      if (Math.abs(entry.row.lat - row.lat) > CELL_DEG) continue;
      const d = metresBetween(row.lat, row.lng, entry.row.lat, entry.row.lng);
      if (d <= DUPLICATE_RADIUS_M && similarComparable(key, entry.comparable)) return { id: null, name: entry.row.name, distance_m: Math.round(d), where: entry.where };
    }
    return undefined;
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
