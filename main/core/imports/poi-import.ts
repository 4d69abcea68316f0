import type { Readable } from 'node:stream';
import type { ExportFormat, ImportReport } from '../../../shared/exports.js';
import { MORE_REFUSED, refusalKey, refusalsOf, sayRefusal, sayRefusalGroup, shownValue, unitOf, type Refusal } from '../../../shared/import-words.js';

export type { ImportReport };
import { NUMBER_FIELDS, OPTIONAL_TEXT_FIELDS } from '../../../shared/poi-fields.js';
import { addPoiInput, categoryDescription, MAX_CATEGORIES_PER_POI, updatePoiInput, type ValidAddPoi } from '../../../shared/schemas/pois.js';
import { foldText } from '../../../shared/text-fold.js';
import { ServiceError } from '../errors.js';
import type { Services } from '../services.js';
import { ImportTwins, type Twin } from './import-twins.js';
import { reverseSourced, type SourcedAddress } from '../geocode/geocoder.js';
import { newUuid } from '../store/new-uuid.js';
import type { UndoProgress } from '../changes/undo.js';
import type { Actor } from '../store/write-path.js';
import { importRecords, type ImportRecord } from './records.js';
import { importWriter } from './import-writer.js';

export interface ImportOptions {
  /** Check every row and report, writing nothing. */
  dryRun?: boolean;
  /** Create the categories a row names that the client does not have (else the row is refused). */
  createCategories?: boolean;
  /** The category, by name, of the rows that name none (else they are refused): one the client has, or, with `createCategories`, one to create. */
  defaultCategory?: string;
  /** Add rows that repeat a POI of the client exactly (same name folded, within 1 m, same fields): skipped by default. */
  addIdentical?: boolean;
  /** Fill empty address fields from the position (one geocoder call per row: slow). */
  geocode?: boolean;
  /** Rows read so far, at every turn the import gives to other work. */
  onProgress?: (rows: number) => void;
  /** Cancels: the rows read so far are not written, and what was written is undone. */
  signal?: AbortSignal;
  /** How far the undo of a cancelled or failed import got. */
  onUndoProgress?: UndoProgress;
  /** The change log's actor id of the import's writes (its job's id, so a job the app died in can be undone); a new one by default. */
  importId?: string;
}


/** Adds go in by transactions of at most this many rows (fewer when a turn's time is up first, or when writing them would take long). */
const BATCH = 1_000;
/** What one batch's transaction may take: its size follows the rows' measured cost (R*Tree, change log, grid). */
const FLUSH_MS = 4;
/**
 * An import gives the event loop back at least this often, so a get.json arriving meanwhile
 * waits at most about this long (docs/imports.md).
 */
const IMPORT_TURN_MS = 6;
/** A report lists at most this many refusals (and counts the rest). */
const MAX_LISTED = 1_000;

type Cell = string | number | null | string[] | undefined;

const textOf = (v: Cell): string | undefined => {
  if (v === null || v === undefined || Array.isArray(v)) return undefined;
  const s = String(v);
  if (s === '') return undefined;
  return s;
};
/** A number as people write one in a file: decimal, with an optional exponent (not 0x1A, 0b101, 1_000 or Infinity, which Number() takes). */
const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const numberOf = (v: Cell): number | undefined => {
  if (typeof v === 'number') return v;
  if (v === null || v === undefined || Array.isArray(v) || v.trim() === '') return undefined;
  // NaN: the field's rule refuses it, naming the field ("must be a decimal number").
  return DECIMAL.test(v.trim()) ? Number(v.trim()) : Number.NaN;
};

/**
 * A default category the client does not have, refused before the file is read (unless it is to
 * be created): every row without a category would be refused for it otherwise.
 */
export function checkDefaultCategory(s: Services, clientId: string, options: Pick<ImportOptions, 'defaultCategory' | 'createCategories'>): void {
  const name = options.defaultCategory?.trim();
  if (name === undefined || name === '') return;
  const rule = categoryDescription.safeParse(name);
  if (!rule.success) throw new ServiceError('INVALID_PARAMETER', `The default category’s name ${rule.error.issues[0]?.message ?? 'is not valid'}`, 'category');
  if (options.createCategories) return;
  const known = s.categories.list(clientId, true).some((c) => foldText(c.Description) === foldText(name));
  if (!known) throw new ServiceError('INVALID_PARAMETER', `This client has no category “${shownValue(name)}”: choose one of its categories, or import with Create missing categories`, 'category');
}

/**
 * POIs from CSV or GeoJSON into a client, by the rules of add.json: every row is checked with
 * the same schema; a bad row is refused with its line or feature number and the reason, the
 * others go in, by batches in one transaction each. A row whose `uuid` (or, without one, `id`)
 * names a POI of the client updates it instead. Categories are matched by id, or by name
 * (`category_names`, or a non-numeric `categories`), folded as search folds text.
 *
 * All or nothing from the user's view: an import cancelled, or stopped before the file's end (a
 * file that breaks off, a full disk), undoes what it wrote, as one undo of the import, and its
 * report says so (`undone`, `failed`).
 */
export async function importPois(s: Services, clientId: string, source: Readable, format: ExportFormat, options: ImportOptions = {}): Promise<ImportReport> {
  s.clients.requireId(clientId);
  checkDefaultCategory(s, clientId, options);
  const defaultCategory = options.defaultCategory?.trim() || undefined;
  const actor = { kind: 'import', id: options.importId ?? newUuid() } as const satisfies Actor;
  const report: ImportReport = {
    importId: actor.id, rows: 0, added: 0, updated: 0, refused: [], refusedCount: 0, ignoredColumns: [], createdCategories: [], possibleDuplicates: [], duplicateCount: 0, identical: [], identicalCount: 0, dryRun: options.dryRun === true, cancelled: false, failed: null, undone: false,
  };
  // A check writes nothing: it needs no writer of its own.
  const writer = options.dryRun ? undefined : importWriter(s);
  const twins = new ImportTwins(writer?.store ?? s.store, clientId, options.dryRun === true);
  /** A row that repeats a POI exactly is skipped (unless asked otherwise), and counted. */
  const skipIdentical = (where: string, row: ValidAddPoi): boolean => {
    if (options.addIdentical) return false;
    const twin = twins.identical(row);
    if (!twin) return false;
    report.identicalCount++;
    if (report.identical.length < MAX_LISTED) report.identical.push({ where, name: row.name, of: twin });
    return true;
  };
  // Flagged, never refused: checked against what the client holds and the file's earlier rows.
  const flagDuplicate = (where: string, row: ValidAddPoi, twin: Twin | undefined): void => {
    if (!twin) return;
    report.duplicateCount++;
    if (report.possibleDuplicates.length < MAX_LISTED) report.possibleDuplicates.push({ where, name: row.name, of: twin });
  };
  // Refusals of one cause (or the same causes), counted over every refused row, told once each.
  const groups = new Map<string, { refusals: Refusal[]; unit: 'row' | 'feature'; count: number }>();
  const refuse = (where: string, refusals: Refusal[], name?: unknown): void => {
    report.refusedCount++;
    const unit = unitOf(where);
    const key = refusals.map(refusalKey).join(' + ');
    const group = groups.get(key);
    if (group) group.count++;
    // Past so many causes, a report would be as long as the file: the rest are counted in the last.
    else if (groups.size < MAX_LISTED) groups.set(key, { refusals, unit, count: 1 });
    else [...groups.values()].at(-1)!.count++;
    if (report.refused.length >= MAX_LISTED) return;
    const reason = refusals.map((r) => sayRefusal(r, unit)).join('; ');
    const shownName = textOf(name as Cell);
    report.refused.push(shownName === undefined ? { where, reason } : { where, reason, name: shownValue(shownName) });
  };
  const byName = new Map(s.categories.list(clientId, true).map((c) => [foldText(c.Description), c.Id] as const));
  const known = new Set(byName.values());
  // On the writer's connection: a row naming a POI this import added, not yet committed, updates it.
  const reads = writer?.connection ?? s.db;
  const findPoi = reads.prepare<[string, string], number>('SELECT id FROM pois WHERE client_id = ? AND uuid = ?').pluck();
  const hasPoi = reads.prepare<[string, number], number>('SELECT id FROM pois WHERE client_id = ? AND id = ?').pluck();

  const categoriesOf = (r: ImportRecord): number[] | Refusal => {
    const given = r.values.category_names;
    const names = Array.isArray(given) ? given : textOf(given)?.split(/[;|]/);
    const listed = textOf(r.values.categories);
    // Names travel between databases (a client's own categories have other ids elsewhere); ids are the fallback.
    const named = [...new Set((names ?? listed?.split(/[;|,]/) ?? []).map((t) => t.trim()).filter(Boolean))];
    // A row that names none takes the default category, by name.
    const byNameOnly = names !== undefined || (named.length === 0 && defaultCategory !== undefined);
    const tokens = named.length === 0 && defaultCategory !== undefined ? [defaultCategory] : named;
    // Every category of the row is checked, by the API's rules, before any is created: a row
    // refused leaves no category behind.
    if (tokens.length > MAX_CATEGORIES_PER_POI) return { cause: 'too-many-categories', max: MAX_CATEGORIES_PER_POI, count: tokens.length };
    const ids: number[] = [];
    // Folded, as names are matched: "Café" and "cafe" are one category to create.
    const missing = new Map<string, string>();
    for (const token of tokens) {
      if (!byNameOnly && /^\d+$/.test(token)) ids.push(Number(token));
      else {
        const id = byName.get(foldText(token));
        if (id !== undefined) ids.push(id);
        else {
          const rule = categoryDescription.safeParse(token);
          if (!rule.success) return { cause: 'bad-category-name', name: shownValue(token), rule: rule.error.issues[0]?.message ?? 'is not valid' };
          if (!options.createCategories) return { cause: 'unknown-category', name: shownValue(token) };
          if (!missing.has(foldText(token))) missing.set(foldText(token), token);
        }
      }
    }
    for (const [folded, token] of missing) {
      // A check creates nothing: a stand-in id no real category has (ids count up from 1), positive as the rules want.
      const id = options.dryRun ? Number.MAX_SAFE_INTEGER - byName.size : createCategory(token);
      byName.set(folded, id);
      known.add(id);
      report.createdCategories.push(token);
      ids.push(id);
    }
    return ids;
  };
  /** A category made by this import, or the one another import (or a person) made meanwhile under the same name. */
  const createCategory = (name: string): number => {
    try {
      return s.categories.add(clientId, { desc: name }, actor).Id;
    } catch (error) {
      if (!(error instanceof ServiceError && error.code === 'ALREADY_EXISTS')) throw error;
      const made = s.categories.list(clientId, true).find((c) => foldText(c.Description) === foldText(name));
      if (!made) throw error;
      return made.Id;
    }
  };

  const pending: ValidAddPoi[] = [];
  /** What geocoding found for each pending row, when the import geocodes. */
  const pendingFound: SourcedAddress[] = [];
  /** Each pending row's line (or feature), and its twin among the file's earlier rows, taken as it was read. */
  const pendingWhere: string[] = [];
  const pendingFileTwins: Array<Twin | undefined> = [];
  // Rows per batch, from what the last ones cost: a turn is its reading plus one batch's writing.
  let batchLimit = 100;
  /** The pending rows' possible duplicates, the client's POIs looked up for the whole batch at once (import-twins.ts). */
  const flagPending = (): void => {
    twins.batchTwins(pending, pendingFileTwins).forEach((twin, i) => flagDuplicate(pendingWhere[i]!, pending[i]!, twin));
    pendingWhere.length = 0;
    pendingFileTwins.length = 0;
  };
  const flush = (): void => {
    if (pending.length === 0) return;
    flagPending();
    if (!options.dryRun) {
      const t0 = performance.now();
      writer!.addMany(clientId, pending, actor, options.geocode ? pendingFound : undefined);
      const perRow = (performance.now() - t0) / pending.length;
      batchLimit = Math.max(10, Math.min(BATCH, Math.floor(FLUSH_MS / Math.max(perRow, 1e-3))));
      twins.written();
      writer!.settle();
    }
    report.added += pending.length;
    pending.length = 0;
    pendingFound.length = 0;
  };
  let turnStarted = performance.now();
  /** Writes what is pending and lets other requests in, once this turn has run its time. */
  const pace = async (): Promise<void> => {
    if (pending.length < batchLimit && performance.now() - turnStarted < IMPORT_TURN_MS) return;
    await writer?.mayGo();
    flush();
    options.onProgress?.(report.rows);
    await new Promise((resolve) => setImmediate(resolve));
    turnStarted = performance.now();
  };

  const records = importRecords(source, format, (ignored) => (report.ignoredColumns = ignored));
  // The wait for the next record also ends when the file cannot be read any more (a drive gone,
  // a directory given as the file: a parser piped from it would wait for ever) or on Cancel.
  // Not Promise.race with one long-lived promise: each race leaves a reaction on it, holding that
  // record, and a 1 GB import held them all (2.8 GiB).
  const CANCELLED = Symbol('cancelled');
  let stopped: typeof CANCELLED | ServiceError | undefined;
  let wake: ((why: typeof CANCELLED | ServiceError) => void) | undefined;
  const stop = (why: typeof CANCELLED | ServiceError): void => {
    stopped ??= why;
    wake?.(why);
  };
  source.on('error', (error: Error) => stop(new ServiceError('INVALID_PARAMETER', `the file could not be read (${error.message})`, 'file')));
  if (options.signal?.aborted) stop(CANCELLED);
  options.signal?.addEventListener('abort', () => stop(CANCELLED), { once: true });
  const nextRecord = (): Promise<IteratorResult<ImportRecord> | typeof CANCELLED> =>
    new Promise((resolve, reject) => {
      const settle = (why: typeof CANCELLED | ServiceError): void => (why === CANCELLED ? resolve(why) : reject(why));
      if (stopped !== undefined) return settle(stopped);
      wake = settle;
      records.next().then(resolve, reject);
    });
  const readAll = async (): Promise<void> => {
    for (;;) {
      if (options.signal?.aborted) {
        report.cancelled = true;
        return;
      }
      let next: IteratorResult<ImportRecord> | typeof CANCELLED;
      try {
        next = await nextRecord();
      } catch (error) {
        // A file that cannot be read past some point (a 100 MB line, broken JSON): the import stops there.
        if (!(error instanceof ServiceError)) throw error;
        report.failed = `${report.rows === 0 ? 'The file' : `After row ${report.rows}, the file`} cannot be read: ${error.message}`;
        return;
      }
      if (next === CANCELLED) {
        report.cancelled = true;
        return;
      }
      if (next.done) return;
      const r = next.value;
      await pace();
      report.rows++;
      if (r.refusal !== undefined) {
        refuse(r.where, [r.refusal], r.values.name);
        continue;
      }
      const categories = categoriesOf(r);
      if (!Array.isArray(categories)) {
        refuse(r.where, [categories], r.values.name);
        continue;
      }
      const fields: Record<string, unknown> = { name: textOf(r.values.name), lat: numberOf(r.values.lat), lng: numberOf(r.values.lng) };
      for (const wire of OPTIONAL_TEXT_FIELDS) fields[wire] = textOf(r.values[wire]);
      for (const wire of NUMBER_FIELDS) fields[wire] = numberOf(r.values[wire]);
      if (categories.length > 0) fields.categories = categories;
      const uuid = textOf(r.values.uuid);
      const givenId = numberOf(r.values.id);
      const existing = uuid !== undefined ? findPoi.get(clientId, uuid) : givenId !== undefined && Number.isInteger(givenId) ? hasPoi.get(clientId, givenId) : undefined;
      if (existing !== undefined) {
        const checked = updatePoiInput.safeParse({ ...fields, poi: existing, geocode: options.geocode === true });
        if (!checked.success) refuse(r.where, refusalsOf(checked.error.issues, fields, r.values), r.values.name);
        else {
          // The update reads the POI through the main connection: this import's rows must be committed first.
          writer?.commit();
          if (!options.dryRun) await s.pois.update(clientId, checked.data, null, actor);
          report.updated++;
        }
        continue;
      }
      const checked = addPoiInput.safeParse({ ...fields, geocode: options.geocode === true });
      if (!checked.success) {
        refuse(r.where, refusalsOf(checked.error.issues, fields, r.values), r.values.name);
        continue;
      }
      // Checked here rather than in the batch's transaction: one unknown id would refuse the whole batch.
      const unknown = checked.data.categories.filter((id) => !known.has(id));
      if (unknown.length > 0) {
        refuse(r.where, [{ cause: 'unknown-category-id', ids: unknown }], r.values.name);
        continue;
      }
      if (skipIdentical(r.where, checked.data)) continue;
      // Geocoded here, written with the batch: one transaction per row made a geocoded import 2.6x slower.
      if (options.geocode && !options.dryRun) pendingFound.push(await reverseSourced(s.geocoder, checked.data.lat, checked.data.lng));
      pendingFileTwins.push(twins.fileTwin(checked.data));
      pendingWhere.push(r.where);
      pending.push(checked.data);
      twins.add(checked.data, r.where);
    }
  };
  try {
    await readAll();
    // A Cancel that came during the last read still wins: nothing of it stays.
    if (options.signal?.aborted) report.cancelled = true;
    if (!report.cancelled && report.failed === null) {
      await writer?.mayGo();
      flush();
      writer?.commit();
    }
    // Not written, but its report still flags what the rows read resemble.
    else flagPending();
  } catch (error) {
    report.failed = `The import stopped: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    // What was not committed goes with the connection: the undo below takes what was.
    writer?.close();
    // The file is let go whatever happened (a cancel leaves it half read).
    void records.return(undefined);
    source.destroy();
  }
  if ((report.cancelled || report.failed !== null) && !options.dryRun) await undoWhatWasWritten(s, clientId, report, options.onUndoProgress);
  options.onProgress?.(report.rows);
  report.refusedGroups = [...groups.values()].map(({ refusals, unit, count }) => ({ reason: refusals.map((r) => sayRefusalGroup(r, count, unit)).join('; '), count }));
  if (report.refusedCount > report.refused.length) report.refused.push({ where: MORE_REFUSED, reason: `${report.refusedCount - report.refused.length} more rows refused` });
  return report;
}

/** A cancelled or failed import's writes, undone as one; the report says whether that worked. */
async function undoWhatWasWritten(s: Services, clientId: string, report: ImportReport, onProgress: UndoProgress | undefined): Promise<void> {
  if (report.added + report.updated + report.createdCategories.length === 0) return;
  try {
    await s.undo.importRun(clientId, report.importId, onProgress);
    report.undone = true;
  } catch (error) {
    // Someone changed an imported POI meanwhile: undoing over their edit would lose it.
    const why = error instanceof Error ? error.message : String(error);
    report.failed = `${report.failed ?? 'Cancelled.'} What it wrote could not be undone: ${why}`;
  }
}
