import { z } from 'zod';
import { NUMBER_FIELDS, OPTIONAL_TEXT_FIELDS, POI_FIELDS, type NumberField, type OptionalTextField } from '../poi-fields.js';
import type { Loose } from './members.js';

/**
 * POI rules (docs/api-spec.md#add-a-poi, docs/api-spec.md#update-a-poi), keyed by the wire
 * parameter names. Lengths count Unicode code points. In update, `undefined` means "leave
 * unchanged" and `null` means "delete the value".
 */

/** At most `max` code points: a string of at most `max` UTF-16 units has no more, so only longer ones are counted. */
const atMost = (s: string, max: number): boolean => s.length <= max || [...s].length <= max;

/** A text field's rule: valid Unicode, at most `max` characters (code points). The API's and sync's (shared/sync-entities.ts). */
export const text = (max: number) =>
  z
    .string()
    .refine((s) => s.isWellFormed(), 'must be valid Unicode (a lone surrogate cannot be stored)')
    .refine((s) => atMost(s, max), `must be at most ${max} characters`);

type TextWire = Extract<(typeof POI_FIELDS)[number], { kind: 'text' }>['wire'];

/** The most characters of each text field (wire names), from the field table. */
export const TEXT_LIMITS: Readonly<Record<TextWire, number>> = Object.fromEntries(
  POI_FIELDS.flatMap((f) => (f.kind === 'text' ? [[f.wire, f.max]] : [])),
) as Record<TextWire, number>;

export const MAX_CATEGORIES_PER_POI = 50;

export const lat = z.number('must be a decimal number').min(-90, 'must be between -90 and 90').max(90, 'must be between -90 and 90');
export const lng = z.number('must be a decimal number').min(-180, 'must be between -180 and 180').max(180, 'must be between -180 and 180');
/** An accuracy is a radius of uncertainty: never negative. */
export const accuracy = z.number('must be a decimal number').min(0, 'must be 0 or more');
/** Metres relative to sea level: anything a device could report, from the sea floor to orbit. */
export const elevation = z.number('must be a decimal number').min(-20_000, 'must be at least -20000').max(1_000_000, 'must be at most 1000000');

export const name = text(TEXT_LIMITS.name).refine((s) => s.trim() !== '', 'must not be empty');

export const categoryIds = z
  .array(z.number().int('must list integer category ids').positive('must list positive category ids'), 'must be category ids separated by commas')
  .min(1, 'must list at least one category id')
  .max(MAX_CATEGORIES_PER_POI, `must list at most ${MAX_CATEGORIES_PER_POI} categories`)
  .transform((ids) => [...new Set(ids)]);

/** Keyed by wire name (built from the field table, so the keys are named here for the types). */
const optionalTextShape = Object.fromEntries(OPTIONAL_TEXT_FIELDS.map((wire) => [wire, text(TEXT_LIMITS[wire]).nullish()])) as {
  [K in OptionalTextField]: ReturnType<ReturnType<typeof text>['nullish']>;
};

const NUMBER_RULES = { elevation, accuracy } as const;
const numberShape = Object.fromEntries(
  NUMBER_FIELDS.map((wire) => [wire, NUMBER_RULES[POI_FIELDS.find((f) => f.wire === wire)!.kind === 'elevation' ? 'elevation' : 'accuracy'].nullish()]),
) as { [K in NumberField]: ReturnType<typeof accuracy.nullish> };

export const addPoiInput = z.object({
  lat,
  lng,
  categories: categoryIds,
  name,
  /** undefined: the platform's date rule decides (docs/api-spec.md#geocoding). */
  geocode: z.boolean().optional(),
  ...numberShape,
  ...optionalTextShape,
});
export type AddPoiInput = Loose<z.input<typeof addPoiInput>>;
export type ValidAddPoi = z.output<typeof addPoiInput>;

/** Present-but-empty arrives as null: refused for the fields update may not delete. */
const notNull = <T extends z.ZodType>(schema: T) =>
  schema.nullish().refine((v) => v !== null, 'cannot be deleted (supplied empty)');

export const updatePoiInput = z
  .object({
    poi: z.number('must be a POI id').int('must be an integer POI id').positive('must be a positive POI id'),
    geocode: z.boolean().optional(),
    lat: notNull(lat),
    lng: notNull(lng),
    categories: notNull(categoryIds),
    name: notNull(name),
    ...numberShape,
    ...optionalTextShape,
  })
  .superRefine((v, ctx) => {
    if (v.lat !== undefined && v.lng === undefined) {
      ctx.addIssue({ code: 'custom', path: ['lng'], message: 'is required when lat is given', params: { missing: true } });
    }
    if (v.lng !== undefined && v.lat === undefined) {
      ctx.addIssue({ code: 'custom', path: ['lat'], message: 'is required when lng is given', params: { missing: true } });
    }
  });
export type UpdatePoiInput = Loose<z.input<typeof updatePoiInput>>;
export type ValidUpdatePoi = z.output<typeof updatePoiInput>;

export const categoryDescription = text(100).refine((s) => s.trim() !== '', 'must not be empty');

export const WARNING_TYPES = ['CLOSED', 'DUPLICATED', 'WRONG_INDICATOR', 'WRONG_INFO'] as const;
export type WarningType = (typeof WARNING_TYPES)[number];
export const warningType = z
  .string('must be CLOSED, DUPLICATED, WRONG_INDICATOR or WRONG_INFO')
  .transform((s) => s.toUpperCase())
  .pipe(z.enum(WARNING_TYPES, 'must be CLOSED, DUPLICATED, WRONG_INDICATOR or WRONG_INFO'));

/** Results of a list query: `total` caps how many come back. */
export const MAX_TOTAL = 1000;
export const total = z.number().int('must be an integer').min(1, 'must be at least 1').max(MAX_TOTAL, `must be at most ${MAX_TOTAL}`);

/** Half the Earth's circumference: every point is within it. */
export const MAX_RADIUS_METRES = 20_037_509;
export const radius = z.number('must be a decimal number of metres').positive('must be more than 0 metres').max(MAX_RADIUS_METRES, `must be at most ${MAX_RADIUS_METRES} metres`);

const positiveId = (what: string) =>
  z.number(`must be a ${what} id`).int(`must be an integer ${what} id`).positive(`must be a positive ${what} id`);
export const poiId = positiveId('POI');
export const categoryId = positiveId('category');

/** A report: WRONG_INDICATOR may propose a position, WRONG_INFO may propose data. */
export const addWarningInput = z
  .object({
    poi: poiId,
    type: warningType,
    lat: lat.optional(),
    lng: lng.optional(),
    ...numberShape,
    name: name.optional(),
    categories: categoryIds.optional(),
    ...optionalTextShape,
  })
  .superRefine((v, ctx) => {
    if ((v.lat === undefined) !== (v.lng === undefined)) {
      const path = v.lat === undefined ? 'lat' : 'lng';
      ctx.addIssue({ code: 'custom', path: [path], message: 'is required with the other coordinate', params: { missing: true } });
    }
  });
export type AddWarningInput = Loose<z.input<typeof addWarningInput>>;
export type ValidAddWarning = z.output<typeof addWarningInput>;

/** Which proposed fields each type carries; the rest of a request is ignored. */
export const PROPOSED_FIELDS = {
  CLOSED: [],
  DUPLICATED: [],
  WRONG_INDICATOR: ['lat', 'lng', 'accuracy', 'vaccuracy', 'elevation'],
  WRONG_INFO: ['name', 'categories', 'desc', 'address', 'cross_street', 'city', 'country', 'postal_code', 'phone', 'twitter'],
} as const satisfies Record<WarningType, readonly (keyof ValidAddWarning)[]>;

export const nearInput = z.object({
  lat,
  lng,
  radius,
  categories: categoryIds.optional(),
  total: total.optional(),
});
export type NearInput = Loose<z.input<typeof nearInput>>;
export type ValidNear = z.output<typeof nearInput>;

const filterText = (max: number) => text(max).refine((s) => s !== '', 'must not be empty');

export const whereInput = z.object({
  categories: categoryIds.optional(),
  pois: z.array(poiId, 'must be POI ids separated by commas').min(1).max(MAX_TOTAL, `must list at most ${MAX_TOTAL} POIs`).optional(),
  city: filterText(TEXT_LIMITS.city).optional(),
  country: filterText(TEXT_LIMITS.country).optional(),
  postal_code: filterText(TEXT_LIMITS.postal_code).optional(),
  q: filterText(200).optional(),
  total: total.optional(),
});
export type WhereInput = Loose<z.input<typeof whereInput>>;
export type ValidWhere = z.output<typeof whereInput>;
