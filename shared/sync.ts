import { z } from 'zod';
import { POI_FIELDS } from './poi-fields.js';

/**
 * The sync protocol between a desktop and the central (issue 12), declared once: the desktop
 * builds its requests with these types, and the central checks them with these schemas.
 *
 * Identity across machines is the UUID: integer ids stay local to each desktop. A category is
 * named by its UUID, or, for the system categories (the same ids on every desktop), as `system:N`.
 */

const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID');
export const categoryRef = z.union([uuid, z.string().regex(/^system:\d+$/, 'must be a category UUID or system:N')]);
export type CategoryRef = z.infer<typeof categoryRef>;

/** In the order a push writes them: a report after its POI. */
export const SYNCED_ENTITIES = ['poi', 'category', 'member', 'warning'] as const;
export type SyncedEntity = (typeof SYNCED_ENTITIES)[number];

/** What syncs, by entity: each entity's fields as the central stores them (POIs: the field table's columns). */
export const SYNCED_FIELDS = {
  poi: [...POI_FIELDS.map((f) => f.column), 'categories', 'created_by', 'registered_at'],
  category: ['description', 'deleted_at'],
  // The password travels as its hash (argon2id), never in clear; tokens never travel: each desktop issues its own.
  member: ['username', 'email', 'pwd_hash', 'gender', 'birthday', 'email_verified', 'registered_at'],
  // A problem report, naming its POI by uuid; its proposal (`data`) as JSON text.
  warning: ['poi_uuid', 'type', 'member_id', 'data', 'created_at'],
} as const satisfies Record<SyncedEntity, readonly string[]>;

/** Fields merged without comparing bases: a password hash is not compared (the log keeps no old hash), the last one set wins. */
export const UNCOMPARED_FIELDS: readonly string[] = ['pwd_hash'];

/** A field's value on the wire: text, number (dates as epoch milliseconds), a list of category refs, or null. */
export const fieldValue = z.union([z.string(), z.number(), z.array(categoryRef), z.null()]);
export type FieldValue = z.infer<typeof fieldValue>;

/**
 * One local change, as pushed. `fields` holds each field it changed as [base, mine]: the value
 * it had before this change (what the desktop last saw) and the value it wrote. The central
 * merges field by field against its current value: its own value equal to the base means only
 * this desktop changed it (applied); equal to mine, already applied; anything else, both sides
 * changed it: a conflict. A create's bases are null; a delete's `mine` are null.
 */
export const pushedChange = z
  .object({
    /** Unique per change and stable across retries (the device's id and the local log's seq): applied once. */
    op: z.string().min(1).max(100),
    entity: z.enum(SYNCED_ENTITIES),
    uuid,
    kind: z.enum(['create', 'update', 'delete']),
    fields: z.record(z.string(), z.tuple([fieldValue, fieldValue])),
    /** When it was made on the desktop, epoch ms. */
    at: z.number().int().nonnegative(),
  })
  .superRefine((c, ctx) => {
    const known: readonly string[] = SYNCED_FIELDS[c.entity];
    for (const field of Object.keys(c.fields)) {
      if (!known.includes(field)) ctx.addIssue({ code: 'custom', message: `${c.entity} has no synced field ${field}`, path: ['fields', field] });
    }
  });
export type PushedChange = z.infer<typeof pushedChange>;

/** The most changes one push carries: one transaction on the central, bounded. */
export const MAX_PUSH = 1000;

export const pushRequest = z.object({ changes: z.array(pushedChange).max(MAX_PUSH, `at most ${MAX_PUSH} changes per push`) });
export type PushRequest = z.infer<typeof pushRequest>;

export const pushReply = z.object({
  /** Applied now, or already applied by an earlier try of the same push. */
  applied: z.number().int(),
  /** Conflicts recorded by this push (see the client's policy). */
  conflicts: z.number().int(),
});
export type PushReply = z.infer<typeof pushReply>;

/** One row of the central as a pull gives it: its current state (or its tombstone), at its place on the change sequence. */
export const pulledRow = z.object({
  entity: z.enum(SYNCED_ENTITIES),
  uuid,
  seq: z.number().int(),
  version: z.number().int(),
  deleted: z.boolean(),
  fields: z.record(z.string(), fieldValue),
});
export type PulledRow = z.infer<typeof pulledRow>;

/** The most rows one pull gives: a first pull of a million POIs goes page by page, in bounded memory. */
export const MAX_PULL = 5000;

export const pullReply = z.object({
  rows: z.array(pulledRow),
  /** The cursor to ask from next; equal to the one given when nothing is newer. */
  cursor: z.number().int(),
  /** Whether more rows wait after this page. */
  more: z.boolean(),
  /** How many rows were after the cursor when this page was read, when asked (`count=1`): a progress bar's total. */
  remaining: z.number().int().optional(),
});
export type PullReply = z.infer<typeof pullReply>;

export const CONFLICT_POLICIES = ['last-writer-wins', 'manual'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

/** Who a device credential is, for the desktop's first contact. */
export const helloReply = z.object({
  device: uuid,
  client_id: uuid,
  client_name: z.string().nullable(),
  policy: z.enum(CONFLICT_POLICIES),
});
export type HelloReply = z.infer<typeof helloReply>;


const conflictSide = z.union([fieldValue, z.record(z.string(), fieldValue), z.literal('deleted')]);

/** A conflict as the central keeps it: one field (or, for an edit against a delete, the whole row). */
export const conflictReply = z.object({
  id: z.number().int(),
  entity: z.enum(SYNCED_ENTITIES),
  uuid,
  /** What a person calls it now: the POI's name, the category's, the member's username. */
  label: z.string().nullable(),
  /** null: an edit against a delete. */
  field: z.string().nullable(),
  /** The value before both changes (an edit against a delete: the deleted row's fields). */
  base: conflictSide.nullable(),
  /** The value pushed last ("deleted" for a delete). */
  mine: conflictSide,
  /** The central's value when the push arrived ("deleted" when it had been deleted). */
  theirs: conflictSide,
  device: uuid.nullable(),
  at: z.string(),
  /** What the central kept: the pushed value (last writer wins) or its own (manual). */
  kept: z.enum(['mine', 'theirs']),
});
export type ConflictReply = z.infer<typeof conflictReply>;
