import { OK_BODY, type OkBody } from '../../../shared/errors.js';
import {
  addWarningInput,
  categoryId,
  MAX_TOTAL,
  poiId,
  warningType,
  type AddPoiInput,
  type AddWarningInput,
  type NearInput,
  type UpdatePoiInput,
  type WhereInput,
} from '../../../shared/schemas/pois.js';
import type { CategoryReply, ChangeReply, PoiReply, WarningGroup, WarningReply } from '../../../shared/wire.js';
import type { ChangeLog } from '../changes/change-log.js';
import { z } from 'zod';
import type { Categories } from '../categories.js';
import { ServiceError, validate } from '../errors.js';
import type { Pois } from '../pois/pois.js';
import { poiNotFound } from '../pois/pois.js';
import type { PoiStore } from '../pois/poi-store.js';
import type { PoiQueries } from '../pois/queries.js';
import { warningListPoi } from '../pois/warning-reply.js';
import type { WarningStore } from '../pois/warnings.js';
import type { WritePath } from '../store/write-path.js';
import { actorOf, type Credential, type Principal, type Tokens } from '../tokens.js';

type Token = Credential;

const poiParam = z.object({ poi: poiId });
const categoryParam = z.object({ category: categoryId });
const warningFilter = z.object({
  pois: z.array(poiId, 'must be POI ids separated by commas').optional(),
  type: warningType.optional(),
});
const warningDelete = z.object({
  poi: z.array(poiId, 'must be POI ids separated by commas').min(1).max(MAX_TOTAL, `must list at most ${MAX_TOTAL} POIs`),
  type: warningType.optional(),
});

/**
 * The POI, category and warning operations of the API with their authorization rules: any
 * token of a client reads, adds POIs and reports warnings; only its administrator token updates
 * and deletes. A token never reaches another client's data: every query is scoped by client.
 */
export class PoiApi {
  constructor(
    private readonly writes: WritePath,
    private readonly tokens: Tokens,
    private readonly pois: Pois,
    private readonly queries: PoiQueries,
    private readonly store: PoiStore,
    private readonly categories: Categories,
    private readonly warnings: WarningStore,
    private readonly changes: ChangeLog,
  ) {}

  private admin(token: Token): Principal {
    const principal = this.tokens.principal(token);
    if (principal.role !== 'admin') {
      throw new ServiceError('FORBIDDEN', 'this operation needs the administrator access_token', 'access_token');
    }
    return principal;
  }

  add(token: Token, input: AddPoiInput): Promise<PoiReply> {
    const p = this.tokens.principal(token);
    return this.pois.add(p.clientId, this.tokens.author(p), input);
  }

  update(token: Token, input: UpdatePoiInput): Promise<PoiReply> {
    const p = this.admin(token);
    return this.pois.update(p.clientId, input, this.tokens.author(p));
  }

  get(token: Token, raw: { poi?: number | undefined }): PoiReply {
    const { clientId } = this.tokens.principal(token);
    return this.pois.get(clientId, validate(poiParam, raw).poi);
  }

  near(token: Token, input: NearInput): PoiReply[] {
    return this.queries.near(this.tokens.principal(token).clientId, input);
  }

  where(token: Token, input: WhereInput): PoiReply[] {
    return this.queries.where(this.tokens.principal(token).clientId, input);
  }

  remove(token: Token, raw: { poi?: number | undefined }): OkBody {
    const p = this.admin(token);
    this.pois.remove(p.clientId, validate(poiParam, raw).poi, actorOf(p));
    return OK_BODY;
  }

  listCategories(token: Token, includeSystem: boolean | undefined): CategoryReply[] {
    return this.categories.list(this.tokens.principal(token).clientId, includeSystem === true);
  }

  addCategory(token: Token, desc: string | null | undefined): CategoryReply {
    const p = this.admin(token);
    return this.categories.add(p.clientId, { desc }, actorOf(p));
  }

  updateCategory(token: Token, raw: { category?: number | undefined; desc?: string | null | undefined }): CategoryReply {
    const p = this.admin(token);
    return this.categories.update(p.clientId, validate(categoryParam, raw).category, { desc: raw.desc }, actorOf(p));
  }

  removeCategory(token: Token, raw: { category?: number | undefined }): OkBody {
    const p = this.admin(token);
    this.categories.remove(p.clientId, validate(categoryParam, raw).category, actorOf(p));
    return OK_BODY;
  }

  addWarning(token: Token, raw: AddWarningInput): Promise<WarningReply> {
    const p = this.tokens.principal(token);
    const input = validate(addWarningInput, raw);
    const author = this.tokens.author(p);
    return this.writes.run(author.actor, () => {
      author.assertStillValid();
      if (!this.store.get(p.clientId, input.poi)) throw poiNotFound(input.poi);
      if (input.type === 'WRONG_INFO' && input.categories) this.categories.assertUsable(p.clientId, input.categories);
      return this.warnings.add(author.memberId, input);
    });
  }

  /** Open reports grouped by POI, each with the POI as it is now. */
  listWarnings(token: Token, raw: { pois?: number[] | undefined; type?: string | undefined }): WarningGroup[] {
    const { clientId } = this.tokens.principal(token);
    const filter = validate(warningFilter, raw);
    const reports = this.warnings.list(clientId, filter.pois, filter.type);
    const byPoi = new Map<number, WarningReply[]>();
    for (const w of reports) {
      let list = byPoi.get(w.poi_id);
      if (!list) byPoi.set(w.poi_id, (list = []));
      list.push(w);
    }
    const rows = [...byPoi.keys()].map((id) => this.store.get(clientId, id)).filter((r) => r !== undefined);
    return this.pois.replies(rows).map((poi) => ({ current: warningListPoi(poi), warnings: byPoi.get(poi.id) ?? [] }));
  }

  /** Every change of a POI, its categories and reports, newest first; a deleted POI's too. */
  history(token: Token, raw: { poi?: number | undefined }): ChangeReply[] {
    const { clientId } = this.admin(token);
    const { poi } = validate(poiParam, raw);
    return this.changes.poiHistory(clientId, poi);
  }

  /**
   * The administrator marks reports as processed: they stop counting. `poi` may list several POIs
   * (`poi=1,4`, as the old SDK sends it); one that is not the client's refuses the whole call.
   */
  removeWarnings(token: Token, raw: { poi?: number[] | undefined; type?: string | undefined }): OkBody {
    const p = this.admin(token);
    const input = validate(warningDelete, raw);
    const missing = input.poi.find((id) => !this.store.get(p.clientId, id));
    if (missing !== undefined) throw poiNotFound(missing);
    this.warnings.remove(input.poi, input.type, actorOf(p));
    return OK_BODY;
  }
}
