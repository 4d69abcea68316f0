import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { loginInput, oldPasswordWithNew, pageInput, registerInput, updateMemberFields } from '../schemas/members.js';
import { addPoiInput, addWarningInput, categoryDescription, categoryId, MAX_TOTAL, nearInput, poiId, updatePoiInput, warningType, whereInput } from '../schemas/pois.js';
import { categoryReply, changeReply, okReply, poiReply, userReply, warningGroup, warningReply } from './replies.js';

/**
 * Who may call an operation, said once for the tables of docs/api.md and the OpenAPI document
 * (where `access_token` carries both kinds of token, so the scheme alone cannot tell them apart).
 */
export const ACCESS = {
  /** A member's or its administrator's. */
  member: 'any token of the client',
  admin: "the client's administrator token",
  /** Login's. */
  apiKey: "the client's `api_key`",
  /** Register's. */
  apiKeyOrAdmin: "the client's administrator token, or the `api_key` of a client that allows Implicit Flow",
} as const satisfies Record<string, string>;
export type Access = keyof typeof ACCESS;

export type Verb = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface ApiOperation {
  /** Below `/1/`, without `.json`. `{id}` is a path parameter, given to the input under that name. */
  path: string;
  verbs: readonly Verb[];
  access: Access;
  /** The input in wire names: every parameter the operation reads, and its rule. */
  input: z.ZodType;
  reply: z.ZodType;
  /** Only reads: HEAD is answered as GET, and the work runs in one read transaction. */
  reads: boolean;
  /** Reads whose cost grows with the data: they take turns (main/core/heavy-lane.ts). */
  heavy?: true;
  /**
   * Its reply depends on nothing but the data, the token's client and the input (no clock, no
   * header, synchronous): the listener may answer the same GET again from memory until anything
   * is committed (main/http/reply-memo.ts).
   */
  repeatable?: true;
  summary: string;
  /** The refusals particular to this operation (those of its access level and input come with them). */
  errors: readonly ErrorCode[];
  /** Headers a reply may carry, by name, each with what it says (the body's shape is old clients'). */
  headers?: Readonly<Record<string, string>>;
}

/** On an add.json reply: ids of the client's POIs within 50 m with a similar name, nearest first. */
export const POSSIBLE_DUPLICATES_HEADER = 'X-Possible-Duplicates';

/**
 * add.json's input, and `duplicates`: a client that reads the X-Possible-Duplicates header asks
 * for the check; old clients, which never read it, do not pay for it on every add.
 */
const addPoiWithCheck = addPoiInput.extend({
  duplicates: z.boolean().optional().meta({ description: 'true: look for possible duplicates and list them in the X-Possible-Duplicates header' }),
});

/** Operations documented as GET were also called with POST by real clients (docs/api-spec.md#paths-and-versions). */
const GET_OR_POST = ['GET', 'POST'] as const;

const memberRef = z.string().min(1).max(100).meta({ description: 'A member id, or `me`' });
/** Delete is the administrator's, whose token is no member's: `me` would name nobody. */
const memberId = z.string().min(1).max(100).meta({ description: 'A member id' });
const poiRef = z.object({ poi: poiId });
const categoryRef = z.object({ category: categoryId });
const poiIdList = z.array(poiId, 'must be POI ids separated by commas').min(1).max(MAX_TOTAL, `must list at most ${MAX_TOTAL} POIs`);

/**
 * The platform's API (docs/api-spec.md), one entry per operation. The HTTP listener routes,
 * reads, checks and answers every operation from this table (main/http/api-runner.ts), the core
 * implements each one once (main/core/api/handlers.ts), and the OpenAPI document derives from it.
 */
export const API = {
  'users.register': {
    path: 'users', verbs: ['POST'], access: 'apiKeyOrAdmin', input: registerInput, reply: userReply, reads: false,
    summary: 'Register a member, replied with a new token of its own; through the api_key only if the client allows Implicit Flow',
    errors: ['ALREADY_EXISTS', 'IMPLICIT_FLOW_DISABLED', 'TOO_MANY_REQUESTS'],
  },
  'users.list': {
    path: 'users', verbs: ['GET'], access: 'admin', input: pageInput, reply: z.array(userReply), reads: true,
    summary: "List the client's members, in registration order", errors: [],
  },
  'users.login': {
    path: 'users/login', verbs: ['POST'], access: 'apiKey', input: loginInput, reply: userReply, reads: false,
    summary: 'Log a member in by username or e-mail, replied with a new token', errors: ['INVALID_CREDENTIALS', 'TOO_MANY_REQUESTS'],
  },
  'users.logout': {
    path: 'users/login', verbs: ['DELETE'], access: 'member', input: z.object({}), reply: okReply, reads: false,
    summary: "Revoke the member token that makes the request (an administrator token is rotated, not logged out)", errors: ['FORBIDDEN'],
  },
  'users.show': {
    path: 'users/{id}/show', verbs: GET_OR_POST, access: 'member', input: z.object({ id: memberRef }), reply: userReply, reads: true,
    summary: 'A member of the client, or `me`', errors: ['NOT_FOUND'],
  },
  'users.update': {
    path: 'users/{id}', verbs: ['PUT', 'POST'], access: 'member', input: z.object({ id: memberRef, ...updateMemberFields }).superRefine(oldPasswordWithNew),
    reply: okReply, reads: false,
    summary: "Change a member's password (with the old one), gender or birthday: the administrator any member, a member itself",
    errors: ['NOT_FOUND', 'INVALID_CREDENTIALS', 'FORBIDDEN'],
  },
  'users.delete': {
    path: 'users/{id}', verbs: ['DELETE'], access: 'admin', input: z.object({ id: memberId }), reply: okReply, reads: false,
    summary: 'Delete a member and its tokens', errors: ['NOT_FOUND'],
  },

  'pois.add': {
    path: 'pois/add', verbs: GET_OR_POST, access: 'member', input: addPoiWithCheck, reply: poiReply, reads: false,
    summary: 'Add a POI; never refused for being a possible duplicate, flagged in a header when asked (duplicates=true)', errors: ['NOT_FOUND'],
    headers: {
      [POSSIBLE_DUPLICATES_HEADER]:
        "Only when the add asked (duplicates=true) and there are some: the ids of the client's POIs within 50 m whose names are similar (case, accents and punctuation folded), nearest first, separated by commas",
    },
  },
  'pois.update': {
    path: 'pois/update', verbs: GET_OR_POST, access: 'admin', input: updatePoiInput, reply: poiReply, reads: false,
    summary: 'Update a POI: only what is given changes, an empty value deletes', errors: ['NOT_FOUND'],
  },
  'pois.get': {
    path: 'pois/get', verbs: GET_OR_POST, access: 'member', input: poiRef, reply: poiReply, reads: true, repeatable: true,
    summary: 'One POI', errors: ['NOT_FOUND'],
  },
  'pois.near': {
    path: 'pois/get_near', verbs: GET_OR_POST, access: 'member', input: nearInput, reply: z.array(poiReply), reads: true, heavy: true,
    summary: 'The POIs within a radius (metres, great-circle), nearest first', errors: [],
  },
  'pois.where': {
    path: 'pois/get_where', verbs: GET_OR_POST, access: 'member', input: whereInput, reply: z.array(poiReply), reads: true, heavy: true,
    summary: 'The POIs that pass every filter given, by id', errors: [],
  },
  'pois.delete': {
    path: 'pois/delete', verbs: GET_OR_POST, access: 'admin', input: poiRef, reply: okReply, reads: false,
    summary: 'Delete a POI, its category links and its reports', errors: ['NOT_FOUND'],
  },
  'pois.history': {
    path: 'pois/history', verbs: GET_OR_POST, access: 'admin', input: poiRef, reply: z.array(changeReply), reads: true,
    summary: "Every change of a POI, its categories and reports, newest first; a deleted POI's too", errors: ['NOT_FOUND'],
  },

  'categories.list': {
    path: 'pois/categories', verbs: GET_OR_POST, access: 'member', input: z.object({ include_system_categories: z.boolean().optional() }),
    reply: z.array(categoryReply), reads: true, summary: "The client's categories, and the system ones when asked", errors: [],
  },
  'categories.add': {
    path: 'pois/categories/add', verbs: GET_OR_POST, access: 'admin', input: z.object({ desc: categoryDescription }), reply: categoryReply,
    reads: false, summary: 'Add a category of the client; a name one of its categories or a system one has (case and accents folded) is refused', errors: ['ALREADY_EXISTS'],
  },
  'categories.update': {
    path: 'pois/categories/update', verbs: GET_OR_POST, access: 'admin', input: categoryRef.extend({ desc: categoryDescription }),
    reply: categoryReply, reads: false, summary: "Rename one of the client's categories (not to another's name)", errors: ['NOT_FOUND', 'ALREADY_EXISTS'],
  },
  'categories.delete': {
    path: 'pois/categories/delete', verbs: GET_OR_POST, access: 'admin', input: categoryRef, reply: okReply, reads: false,
    summary: 'Delete one of the client\'s categories: it stops being listed, POIs keep it', errors: ['NOT_FOUND'],
  },

  'warnings.list': {
    path: 'pois/warnings', verbs: GET_OR_POST, access: 'member', input: z.object({ poi: poiIdList.optional(), type: warningType.optional() }),
    reply: z.array(warningGroup), reads: true, heavy: true, summary: 'Open reports, grouped with each POI as it is now', errors: [],
  },
  'warnings.add': {
    path: 'pois/warnings/add', verbs: GET_OR_POST, access: 'member', input: addWarningInput, reply: warningReply, reads: false,
    summary: 'Report a problem with a POI, optionally proposing a position or data', errors: ['NOT_FOUND'],
  },
  'warnings.delete': {
    path: 'pois/warnings/delete', verbs: GET_OR_POST, access: 'admin', input: z.object({ poi: poiIdList, type: warningType.optional() }),
    reply: okReply, reads: false, summary: 'Close the reports of one or several POIs (of one type, or all)', errors: ['NOT_FOUND'],
  },
} as const satisfies Record<string, ApiOperation>;

export type ApiName = keyof typeof API;
export type ApiInput<K extends ApiName> = z.output<(typeof API)[K]['input']>;
export type ApiReply<K extends ApiName> = z.output<(typeof API)[K]['reply']>;
