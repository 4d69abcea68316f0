import { z } from 'zod';
import { POI_FIELDS } from '../poi-fields.js';
import { GENDERS } from '../schemas/members.js';
import { WARNING_TYPES } from '../schemas/pois.js';

/**
 * The replies of the platform's API (docs/api-spec.md#replies), exactly as clients receive them:
 * one declaration, from which the TypeScript types (shared/wire.ts) and the OpenAPI document
 * derive, and against which the tests check real replies.
 */

/** ISO 8601 with offset, as the service writes it: `2026-01-15T12:00:00.000+00:00`. */
const timestamp = z.string().meta({ format: 'date-time', example: '2026-01-15T12:00:00.000+00:00' });
const uuid = z.string().meta({ format: 'uuid' });

export const okReply = z.object({ code: z.literal(200), description: z.literal('OK') });

export const errorReply = z
  .object({
    code: z.number().int(),
    description: z.string().meta({ example: 'EXCEPTION_INVALID_PARAMETER' }),
    message: z.string().optional(),
    parameter: z.string().optional(),
    retry_after: z.number().int().optional(),
  });

export const device = z.object({ id: z.number().int(), name: z.string(), model: z.number().int(), islogical: z.boolean() });

export const accreditation = z.object({
  expirationtime: timestamp.nullable(),
  client_id: z.string(),
  /** The token issued by this reply; null when the reply issues none (show, list). */
  access_token: z.string().nullable(),
  refresh_token: z.null(),
  visibledevices: z.array(device),
});

export const userReply = z
  .object({
    id: z.string(),
    name: z.string(),
    /** null when the caller may not see it (a member looking at another member). */
    email: z.string().nullable(),
    email_verified: z.boolean().nullable(),
    register: timestamp,
    provider: z.null(),
    profile: z.object({ birthday: z.string().nullable(), gender: z.enum(GENDERS) }),
    ugroup: z.array(z.never()),
    accreditation,
  });

/** The category reply (docs/api-spec.md#the-category-reply); the capitalised names are the platform's own. */
export const categoryReply = z
  .object({ Id: z.number().int(), Description: z.string(), is_system_category: z.boolean() });

/** The open reports of each type (docs/api-spec.md#the-warning-counters). */
export const warningCounts = z.object({
  closed: z.number().int(),
  duplicated: z.number().int(),
  wrong_indicator: z.number().int(),
  wrong_info: z.number().int(),
});

type Field = (typeof POI_FIELDS)[number];
type FieldSchema<F extends Field> = F['kind'] extends 'text'
  ? F extends { required: true } ? z.ZodString : z.ZodNullable<z.ZodString>
  : F extends { required: true } ? z.ZodNumber : z.ZodNullable<z.ZodNumber>;

/** Each field of the POI table, under its reply name (built from the table; the keys are named here for the types). */
const poiFields = Object.fromEntries(
  POI_FIELDS.map((f) => {
    const base = f.kind === 'text' ? z.string() : z.number();
    return [f.reply, 'required' in f ? base : base.nullable()];
  }),
) as { [F in Field as F['reply']]: FieldSchema<F> };

/** The POI reply (docs/api-spec.md#the-poi-reply), every field present (null where empty): the old SDK refuses a reply without one. */
export const poiReply = z.object({
  id: z.number().int(),
  /** Stable across copies of the data (history, sync); old clients ignore it. */
  uuid,
  ...poiFields,
  registertime: timestamp,
  categories: z.array(categoryReply),
  last_update: timestamp,
  warnings: warningCounts,
});

/**
 * What a WRONG_INDICATOR or WRONG_INFO report proposes, in the POI reply's names and shapes (the
 * old SDK parses it with its POI parser): null where nothing was proposed, `categories` always
 * an array.
 */
export const warningProposal = z.object({
  /** The report's id. */
  id: z.number().int(),
  ...(Object.fromEntries(POI_FIELDS.map((f) => [f.reply, (f.kind === 'text' ? z.string() : z.number()).nullable()])) as {
    [F in Field as F['reply']]: z.ZodNullable<F['kind'] extends 'text' ? z.ZodString : z.ZodNumber>;
  }),
  categories: z.array(categoryReply),
});

export const warningReply = z
  .object({
    id: z.number().int(),
    poi_id: z.number().int(),
    type: z.enum(WARNING_TYPES),
    /** The reporting member; null when the administrator reported it or the member was deleted. */
    user_id: z.string().nullable(),
    timestamp,
    /** null for CLOSED and DUPLICATED. */
    data: warningProposal.nullable(),
  });

/**
 * The POI as the warnings list shows it: the old SDK reads these camelCase names in this one
 * reply (and the snake_case ones everywhere else), so this reply carries both.
 */
export const warningListPoi = poiReply
  .extend({
    crossStreet: z.string().nullable(),
    postalCode: z.string().nullable(),
    lastUpdate: timestamp,
    warnings: warningCounts.extend({ wrongIndicator: z.number().int(), wrongInfo: z.number().int() }),
  });

export const warningGroup = z.object({ current: warningListPoi, warnings: z.array(warningReply) });

/** Who writes, as the change log names them (its `actor_kind` column allows exactly these). */
export const CHANGE_ACTORS = ['member', 'administrator', 'console', 'import', 'sync', 'system'] as const;

/** One entry of the change log: what changed, from what to what, who did it and when. */
export const changeReply = z
  .object({
    /** The log's sequence number: later changes have higher numbers (never reused: the log is only appended to). */
    seq: z.number().int(),
    at: timestamp,
    /** client, member, token, poi, category, warning, setting (poi_category in logs written before schema version 8). */
    entity: z.string(),
    id: z.string(),
    uuid: uuid.nullable(),
    op: z.enum(['create', 'update', 'delete']),
    /** Each changed field: [old value, new value] (null for a create's old and a delete's new values). */
    fields: z.record(z.string(), z.tuple([z.unknown(), z.unknown()])),
    /** Who: a member (its id), the client's administrator, the console's operator, an import, a sync, or the service itself. */
    actor: z.object({ kind: z.enum(CHANGE_ACTORS), id: z.string().nullable() }),
    /** The change this one reverses (an undo), by its seq; null otherwise. */
    undoes: z.number().int().nullable(),
    /** Of a POI's create or update: who filled each address field it geocoded ("Nominatim", "offline places", "offline map package NAME"); null when it geocoded none. */
    geocoded: z.record(z.string(), z.string()).nullable(),
  });

/** The replies that are components of their own in the OpenAPI document, by name. */
export const NAMED_REPLIES = {
  Ok: okReply,
  Error: errorReply,
  User: userReply,
  Category: categoryReply,
  Poi: poiReply,
  Warning: warningReply,
  WarningProposal: warningProposal,
  WarningListPoi: warningListPoi,
  WarningGroup: warningGroup,
  Change: changeReply,
} as const satisfies Record<string, z.ZodType>;
