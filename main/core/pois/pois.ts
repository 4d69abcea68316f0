import { newUuid } from '../store/new-uuid.js';
import type { ValidAddPoi, ValidUpdatePoi } from '../../../shared/schemas/pois.js';
import { ADDRESS_FIELDS, POI_FIELDS } from '../../../shared/poi-fields.js';
import type { PoiReply } from '../../../shared/wire.js';
import type { Categories } from '../categories/categories.js';
import type { Clock } from '../clock.js';
import { ServiceError } from '../errors.js';
import { reverseSourced, type AddressSources, type GeocodedAddress, type Geocoder, type SourcedAddress } from '../geocode/geocoder.js';
import type { GeocodedFields } from '../changes/geocoded-fields.js';
import { geocodeByDefault } from './geocode-rule.js';
import { categoryIds, type PoiRow } from './poi-row.js';
import type { PoiStore } from './poi-store.js';
import { CONSOLE, type Actor, type WritePath } from '../store/write-path.js';
import { NO_WARNINGS, poiReply } from './reply.js';
import type { ReplyCache } from './reply-cache.js';
import type { Author } from '../tokens/tokens.js';
import type { WarningStore } from '../warnings/warnings.js';

/** The sources of the fields of `found` that `kept` says were written. */
const sourcesOf = (found: SourcedAddress, kept: (field: (typeof ADDRESS_FIELDS)[number]) => boolean): AddressSources =>
  Object.fromEntries(ADDRESS_FIELDS.flatMap((field) => (found.fields[field] !== undefined && found.sources[field] !== undefined && kept(field) ? [[field, found.sources[field]]] : [])));

export const poiNotFound = (id: number): ServiceError =>
  new ServiceError('NOT_FOUND', `no POI ${id} in this client application`, 'poi');

/** The wire names update takes, each with its column (the field table's). */
const SETTABLE = POI_FIELDS.map((f) => [f.wire, f.column] as const) satisfies ReadonlyArray<readonly [keyof ValidUpdatePoi, keyof PoiRow]>;

/**
 * Add, update, read and delete POIs, for one client at a time, by the rules of
 * docs/api-spec.md#add-a-poi and docs/api-spec.md#update-a-poi.
 */
export class Pois {
  constructor(
    private readonly writes: WritePath,
    private readonly clock: Clock,
    private readonly store: PoiStore,
    private readonly categories: Categories,
    private readonly warnings: WarningStore,
    private readonly geocoder: Geocoder,
    private readonly cache: ReplyCache,
    private readonly geocoded: GeocodedFields,
  ) {}

  /** Whether this request geocodes: its own geocode, else the platform's date rule (docs/api-spec.md#geocoding). */
  private geocodes(asked: boolean | undefined): boolean {
    return asked ?? geocodeByDefault(this.clock.now());
  }

  /** `author` is null for the console's operator, who writes for no member. */
  /** `input` is checked by the caller's transport (the API's or the console's schema), once. */
  async add(clientId: string, author: Author | null, input: ValidAddPoi, actor: Actor = author?.actor ?? CONSOLE): Promise<PoiReply> {
    let found: SourcedAddress = { fields: {}, sources: {} };
    if (this.geocodes(input.geocode)) {
      // Refuse bad categories before spending time on geocoding; they are checked again below.
      this.categories.assertUsable(clientId, input.categories);
      found = await reverseSourced(this.geocoder, input.lat, input.lng);
    }
    const row = this.newRow(clientId, author, input, found.fields, this.clock.now());
    // The fields the request left to geocoding, and who filled them: for the POI's history.
    const filled = sourcesOf(found, (field) => input[field] === undefined);
    const [id, categories] = await this.writes.run(actor, () => {
      author?.assertStillValid();
      // Inside the write: categories may have been deleted while we were geocoding.
      const usable = this.categories.assertUsable(clientId, input.categories);
      const inserted = this.store.insert(row);
      this.geocoded.record(inserted, filled);
      return [inserted, usable] as const;
    });
    // Built from what was written rather than read back: a new POI has no reports yet, and its
    // categories come in id order, as a read would give them.
    return poiReply({ ...row, id }, categories, NO_WARNINGS);
  }

  /**
   * Many POIs in one transaction (an import's batch): all go in, or none. No geocoding here: an
   * import that asks for it geocodes each row first and passes what was found, by row, which
   * fills the fields the row left empty and is recorded in the history as `add` does.
   */
  addMany(clientId: string, inputs: readonly ValidAddPoi[], actor: Actor = CONSOLE, found?: ReadonlyArray<SourcedAddress | undefined>): number[] {
    const now = this.clock.now();
    return this.writes.now(actor, () =>
      inputs.map((input, i) => {
        this.categories.assertUsable(clientId, input.categories);
        const geocoded = found?.[i];
        const id = this.store.insert(this.newRow(clientId, null, input, geocoded?.fields ?? {}, now));
        if (geocoded) this.geocoded.record(id, sourcesOf(geocoded, (field) => input[field] === undefined));
        return id;
      }),
    );
  }

  private newRow(clientId: string, author: Author | null, input: ValidAddPoi, found: GeocodedAddress, now: number): Omit<PoiRow, 'id'> {
    return {
      uuid: newUuid(),
      client_id: clientId,
      name: input.name,
      description: input.desc ?? null,
      lat: input.lat,
      lng: input.lng,
      elevation: input.elevation ?? null,
      accuracy: input.accuracy ?? null,
      vaccuracy: input.vaccuracy ?? null,
      // Only the address fields the client did not supply are generated (docs/api-spec.md#geocoding).
      address: input.address === undefined ? (found.address ?? null) : input.address,
      cross_street: input.cross_street === undefined ? (found.cross_street ?? null) : input.cross_street,
      city: input.city === undefined ? (found.city ?? null) : input.city,
      country: input.country === undefined ? (found.country ?? null) : input.country,
      postal_code: input.postal_code === undefined ? (found.postal_code ?? null) : input.postal_code,
      phone: input.phone ?? null,
      twitter: input.twitter ?? null,
      category_ids: categoryIds(input.categories),
      created_by: author?.memberId ?? null,
      registered_at: now,
      updated_at: now,
    };
  }

  /** `author` is null for the console's operator; an import names itself as the `actor`. */
  async update(clientId: string, input: ValidUpdatePoi, author: Author | null = null, actor: Actor = author?.actor ?? CONSOLE): Promise<PoiReply> {
    if (!this.store.get(clientId, input.poi)) throw poiNotFound(input.poi);
    if (input.categories) this.categories.assertUsable(clientId, input.categories);
    const moved = input.lat != null && input.lng != null;
    const found: SourcedAddress | undefined =
      moved && this.geocodes(input.geocode) ? await reverseSourced(this.geocoder, input.lat!, input.lng!) : undefined;
    await this.writes.run(actor, () => {
      author?.assertStillValid();
      // Read again inside the write: another update may have landed while we geocoded.
      const current = this.store.get(clientId, input.poi);
      if (!current) throw poiNotFound(input.poi);
      if (input.categories) this.categories.assertUsable(clientId, input.categories);
      const next: PoiRow = { ...current };
      for (const [param, column] of SETTABLE) {
        const value = input[param];
        if (value !== undefined) Object.assign(next, { [column]: value });
      }
      // Unsupplied address fields follow the new position; nothing found keeps the old value (docs/api-spec.md#geocoding).
      if (found) {
        for (const field of ADDRESS_FIELDS) {
          if (input[field] === undefined) next[field] = found.fields[field] ?? current[field];
        }
      }
      if (input.categories) next.category_ids = categoryIds(input.categories);
      const changed = SETTABLE.some(([, column]) => next[column] !== current[column]) || next.category_ids !== current.category_ids;
      if (!changed) return;
      next.updated_at = Math.max(this.clock.now(), current.updated_at + 1);
      this.store.update(next);
      if (found) this.geocoded.record(input.poi, sourcesOf(found, (field) => input[field] === undefined && next[field] !== current[field]));
    });
    return this.reply(clientId, input.poi);
  }

  /** Through the reply cache (reply-cache.ts): what devices ask most often. */
  get(clientId: string, id: number): PoiReply {
    return this.cache.reply(clientId, id, () => this.reply(clientId, id));
  }

  /** The delete is logged with every old value, its categories included (its tombstone), and so are its reports. */
  remove(clientId: string, id: number, actor: Actor = CONSOLE): void {
    if (!this.writes.now(actor, () => this.store.delete(clientId, id))) throw poiNotFound(id);
  }

  private reply(clientId: string, id: number): PoiReply {
    const row = this.store.get(clientId, id);
    if (!row) throw poiNotFound(id);
    return this.replies([row])[0]!;
  }

  /** Full replies for many rows: their categories from the rows themselves, their warnings in one query. */
  replies(rows: readonly PoiRow[]): PoiReply[] {
    const categories = this.categories.forLists(rows.map((r) => r.category_ids));
    const warnings = this.warnings.counts(rows.map((r) => r.id));
    return rows.map((r, i) => poiReply(r, categories[i]!, warnings.get(r.id) ?? NO_WARNINGS));
  }
}
