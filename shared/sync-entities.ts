import { z } from 'zod';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { POI_FIELDS } from './poi-fields.js';
import { birthday, email, GENDERS, username } from './schemas/members.js';
import { accuracy, categoryDescription, elevation, lat, lng, MAX_CATEGORIES_PER_POI, text, TEXT_LIMITS, WARNING_TYPES } from './schemas/pois.js';
import { sameNameKey } from './text-fold.js';

/**
 * What syncs, declared once per entity (docs/sync.md#what-syncs-and-how): each field's kind and the
 * API's own rule for its value, which fields a live row must have, the keys unique among a client's
 * live rows (with the folding both sides compare them in), the field that names a row to a person,
 * and the central's table and column types. The protocol's schemas (shared/sync.ts), the desktop's
 * outbox and inbox (main/core/sync/), the central's apply and pull (main/central/protocol/), the
 * conflict labels and the checks of both schemas (test/central/schema.test.ts) derive from it.
 */

/** How a field travels: text, a number, a time (epoch ms), a flag (0/1), a UUID, a list of category references. */
export type SyncFieldKind = 'text' | 'number' | 'time' | 'flag' | 'uuid' | 'refs';

export interface SyncField {
  name: string;
  kind: SyncFieldKind;
  /** The API's rule for a value that is there (null is allowed unless the field is required). */
  rule: z.ZodType;
  /** A live row always has it. */
  required?: true;
  /**
   * Compared by its fingerprint (fingerprint() below: a hash of the value): a password hash, which
   * the desktop's change log keeps only as such (migration 014's triggers,
   * main/core/store/migrations/frozen/007-change-triggers.ts).
   */
  fingerprinted?: true;
  /** Set when the row is made, changed by no one after (a creation time): a delete does not compare it. */
  fixed?: true;
}

export interface UniqueKey {
  field: string;
  /** The central's column that keeps the folded value, indexed. */
  column: string;
  /** The form both sides compare it in. */
  fold: (value: string) => string;
  /** How a person names it, in a clash. */
  label: string;
}

export interface SyncEntityDeclaration {
  fields: readonly SyncField[];
  unique: readonly UniqueKey[];
  /** The field that names a row to a person (a conflict's label). */
  label: string;
  /** The central's table; its SQL type per field is the kind's (CENTRAL_TYPES). */
  table: string;
  /** The central's own column set when a row is created (the entity's creation time). */
  created: string;
  /** A category's deletion is one of its fields; the others are tombstoned by the row. */
  deletionField?: string;
}

/** A UUID as both sides write it: lower case (the central's uuid type gives it so), so one row has one spelling. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const uuidRule = z.string().regex(UUID, 'must be a UUID in lower case');
/** From 1970 to the year 275,760 (JavaScript's last date): a time in epoch milliseconds. */
const timeRule = z.number().int('must be whole milliseconds').min(0, 'must be a time after 1970').max(8.64e15, 'must be a valid time');
const flagRule = z.union([z.literal(0), z.literal(1)], 'must be 0 or 1');

/**
 * A category as sync names it: a client category's UUID, or `system:N` for the built-in ones. One
 * pattern, not a union of two rules: every pulled POI's categories pass here, and a union's
 * failed first branch cost four times the match.
 */
export const categoryRef = z.string().regex(new RegExp(`^(?:system:\\d{1,6}|${UUID.source.slice(1, -1)})$`), 'must be a category UUID or system:N');
export type CategoryRef = z.infer<typeof categoryRef>;


/** The largest report proposal (JSON text): a report proposes a POI's fields, a few kilobytes at most. */
export const MAX_REPORT_DATA = 16_384;
/** An argon2id hash is about 100 characters; anything far longer is not one. */
const MAX_PASSWORD_HASH = 512;

/** The API's rule of each kind of POI number (shared/schemas/pois.ts). */
const POI_RULES: Record<string, z.ZodType> = { latitude: lat, longitude: lng, elevation, accuracy };

const poiField = (f: (typeof POI_FIELDS)[number]): SyncField => ({
  name: f.column,
  kind: f.kind === 'text' ? 'text' : 'number',
  rule:
    f.kind === 'text'
      ? 'required' in f
        ? text(TEXT_LIMITS[f.wire]).refine((s) => s.trim() !== '', 'must not be empty')
        : text(TEXT_LIMITS[f.wire])
      : POI_RULES[f.kind]!,
  ...('required' in f ? { required: true as const } : {}),
});

export const SYNC_ENTITIES = {
  poi: {
    table: 'pois',
    created: 'registered_at',
    label: 'name',
    unique: [],
    fields: [
      ...POI_FIELDS.map(poiField),
      {
        name: 'categories',
        kind: 'refs',
        required: true,
        rule: z.array(categoryRef).min(1, 'must list at least one category').max(MAX_CATEGORIES_PER_POI, `must list at most ${MAX_CATEGORIES_PER_POI} categories`),
      },
      { name: 'created_by', kind: 'uuid', rule: uuidRule },
      { name: 'registered_at', kind: 'time', rule: timeRule, required: true, fixed: true },
    ],
  },
  category: {
    table: 'categories',
    created: 'created_at',
    label: 'description',
    deletionField: 'deleted_at',
    unique: [{ field: 'description', column: 'name_key', fold: sameNameKey, label: 'name' }],
    fields: [
      { name: 'description', kind: 'text', rule: categoryDescription, required: true },
      { name: 'deleted_at', kind: 'time', rule: timeRule },
    ],
  },
  member: {
    table: 'members',
    created: 'created_at',
    label: 'username',
    // Usernames and e-mails are compared as the members store does (main/core/members/members.ts).
    unique: [
      { field: 'username', column: 'username_key', fold: (s) => s.toLowerCase(), label: 'username' },
      { field: 'email', column: 'email_key', fold: (s) => s.toLowerCase(), label: 'e-mail' },
    ],
    fields: [
      { name: 'username', kind: 'text', rule: username, required: true },
      { name: 'email', kind: 'text', rule: email, required: true },
      // The password travels as its hash (argon2id), never in clear; tokens never travel: each desktop issues its own.
      { name: 'pwd_hash', kind: 'text', rule: z.string().min(1, 'must not be empty').max(MAX_PASSWORD_HASH, `must be at most ${MAX_PASSWORD_HASH} characters`), required: true, fingerprinted: true },
      { name: 'gender', kind: 'text', rule: z.enum(GENDERS, 'must be MALE, FEMALE or UNDEFINED'), required: true },
      { name: 'birthday', kind: 'text', rule: birthday },
      { name: 'email_verified', kind: 'flag', rule: flagRule, required: true },
      { name: 'registered_at', kind: 'time', rule: timeRule, required: true, fixed: true },
    ],
  },
  warning: {
    table: 'warnings',
    created: 'created_at',
    label: 'type',
    unique: [],
    fields: [
      // A problem report names its POI by uuid; its proposal (`data`) is JSON text.
      { name: 'poi_uuid', kind: 'uuid', rule: uuidRule, required: true },
      { name: 'type', kind: 'text', rule: z.enum(WARNING_TYPES, 'must be CLOSED, DUPLICATED, WRONG_INDICATOR or WRONG_INFO'), required: true },
      { name: 'member_id', kind: 'uuid', rule: uuidRule },
      {
        name: 'data',
        kind: 'text',
        rule: z
          .string()
          .max(MAX_REPORT_DATA, `must be at most ${MAX_REPORT_DATA} characters`)
          .refine((s) => {
            try {
              JSON.parse(s);
              return true;
            } catch {
              return false;
            }
          }, 'must be JSON text'),
      },
      { name: 'created_at', kind: 'time', rule: timeRule, required: true, fixed: true },
    ],
  },
} as const satisfies Record<string, SyncEntityDeclaration>;

/** In the order a push writes them: a POI before the report that names it. */
export const SYNCED_ENTITIES = ['poi', 'category', 'member', 'warning'] as const;
export type SyncedEntity = (typeof SYNCED_ENTITIES)[number];

export const entityOf = (entity: SyncedEntity): SyncEntityDeclaration => SYNC_ENTITIES[entity];
export const fieldNames = (entity: SyncedEntity): readonly string[] => SYNC_ENTITIES[entity].fields.map((f) => f.name);
export const fieldOf = (entity: SyncedEntity, name: string): SyncField | undefined => entityOf(entity).fields.find((f) => f.name === name);
/** The fields a delete gives its base of: every one a person may have changed (not a creation time). */
export const comparedOnDelete = (entity: SyncedEntity): readonly string[] => entityOf(entity).fields.filter((f) => !('fixed' in f)).map((f) => f.name);

/** The central's SQL type of each kind (times travel as epoch ms and are kept as timestamptz). */
export const CENTRAL_TYPES: Record<SyncFieldKind, string> = { text: 'text', number: 'float8', time: 'float8', flag: 'int', uuid: 'uuid', refs: 'text[]' };

/** A field's value on the wire: text, number, a list of category refs, or null. */
export type FieldValue = string | number | string[] | null;

/** What a field's value must be, or why it is not: the API's rule, and the field's kind. */
export function fieldProblem(entity: SyncedEntity, name: string, value: FieldValue | undefined): string | undefined {
  const field = fieldOf(entity, name);
  return field ? valueProblem(field, value) : `${entity} has no synced field ${name}`;
}

function valueProblem(field: SyncField, value: FieldValue | undefined): string | undefined {
  if (value === null || value === undefined) return field.required ? 'must not be empty' : undefined;
  // PostgreSQL keeps no NUL in text: refused here, by the rule, not by the database with a 500.
  if (typeof value === 'string' && value.includes('\u0000')) return 'must not contain the NUL character';
  const result = field.rule.safeParse(value);
  return result.success ? undefined : (result.error.issues[0]?.message ?? 'is not valid');
}

/** The first field of a whole live row that breaks a rule, or undefined when the row is valid. */
export function rowProblem(entity: SyncedEntity, fields: Readonly<Record<string, FieldValue | undefined>>): { field: string; message: string } | undefined {
  // Every pulled row passes here: the fields in hand, not looked up by name one by one.
  for (const f of entityOf(entity).fields) {
    const message = valueProblem(f, fields[f.name]);
    if (message) return { field: f.name, message };
  }
  return undefined;
}

/** The first required field a row lacks, or undefined. */
export function missingRequired(entity: SyncedEntity, fields: Readonly<Record<string, FieldValue | undefined>>): { field: string; message: string } | undefined {
  const field = entityOf(entity).fields.find((f) => 'required' in f && (fields[f.name] === null || fields[f.name] === undefined));
  return field ? { field: field.name, message: 'must not be empty' } : undefined;
}

/**
 * A password hash's fingerprint, as the desktop's log keeps it instead of the hash (migration
 * 014): SHA-256 of the hash, its first 64 bits in hex. It tells two hashes apart and says
 * nothing of either.
 */
export const fingerprint = (value: string): string => `fp:${bytesToHex(sha256(utf8ToBytes(value))).slice(0, 16)}`;

/** A category list as both sides compare it: each once, sorted (local ids, and so the order they give, differ by desktop). */
export const sortedRefs = (refs: readonly string[]): string[] => [...new Set(refs)].sort();

/** The keys unique among an entity's live rows (none for POIs and reports). */
export const uniqueKeys = (entity: SyncedEntity): readonly UniqueKey[] => SYNC_ENTITIES[entity].unique;
