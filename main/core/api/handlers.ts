import { API, type ApiInput, type ApiName, type ApiReply } from '../../../shared/api/operations.js';
import { categoriesApi } from '../categories/api.js';
import { membersApi } from '../members/api.js';
import { poisApi } from '../pois/api.js';
import { warningsApi } from '../warnings/api.js';
import type { Services } from '../services.js';
import type { CallerOf } from './caller.js';

/**
 * Adds a header to the HTTP reply: the way an operation tells new clients more where old clients
 * parse the body's keys and it must stay as it was (docs/api-spec.md#replies-old-clients-parse).
 * Absent outside HTTP.
 */
export type ReplyHeader = (name: string, value: string) => void;

/** One function per operation of the API table, given the resolved caller and the checked input. */
export type ApiHandlers = {
  [K in ApiName]: (caller: CallerOf<(typeof API)[K]['access']>, input: ApiInput<K>, header?: ReplyHeader) => ApiReply<K> | Promise<ApiReply<K>>;
};

/** The parts of the core the API's handlers use. */
export type ApiParts = Pick<Services, 'writes' | 'tokens' | 'members' | 'abuse' | 'pois' | 'queries' | 'store' | 'categories' | 'warnings' | 'changes'>;

/**
 * The platform's API over the core: each operation once, with its rules, in its feature's
 * folder. Any token of a client reads, adds POIs and reports warnings; only its administrator
 * updates and deletes; a token never reaches another client's data (every query is scoped by
 * the caller's client).
 */
export function apiHandlers(c: ApiParts): ApiHandlers {
  return { ...membersApi(c), ...poisApi(c), ...categoriesApi(c), ...warningsApi(c) };
}
