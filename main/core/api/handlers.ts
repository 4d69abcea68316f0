import { API, type ApiInput, type ApiName, type ApiReply } from '../../../shared/api/operations.js';
import type { Categories } from '../categories/categories.js';
import { categoriesApi } from '../categories/api.js';
import type { ChangeLog } from '../changes/change-log.js';
import type { AbuseGuard } from '../members/abuse.js';
import { membersApi } from '../members/api.js';
import type { Members } from '../members/members.js';
import { poisApi } from '../pois/api.js';
import type { PoiStore } from '../pois/poi-store.js';
import type { Pois } from '../pois/pois.js';
import type { PoiQueries } from '../pois/queries.js';
import type { WritePath } from '../store/write-path.js';
import type { Tokens } from '../tokens/tokens.js';
import { warningsApi } from '../warnings/api.js';
import type { WarningStore } from '../warnings/warnings.js';
import type { CallerOf } from './caller.js';

/** One function per operation of the API table, given the resolved caller and the checked input. */
export type ApiHandlers = {
  [K in ApiName]: (caller: CallerOf<(typeof API)[K]['access']>, input: ApiInput<K>) => ApiReply<K> | Promise<ApiReply<K>>;
};

export interface ApiParts {
  writes: WritePath;
  tokens: Tokens;
  members: Members;
  abuse: AbuseGuard;
  pois: Pois;
  queries: PoiQueries;
  store: PoiStore;
  categories: Categories;
  warnings: WarningStore;
  changes: ChangeLog;
}

/**
 * The platform's API over the core: each operation once, with its rules, in its feature's
 * folder. Any token of a client reads, adds POIs and reports warnings; only its administrator
 * updates and deletes; a token never reaches another client's data (every query is scoped by
 * the caller's client).
 */
export function apiHandlers(c: ApiParts): ApiHandlers {
  return { ...membersApi(c), ...poisApi(c), ...categoriesApi(c), ...warningsApi(c) };
}
