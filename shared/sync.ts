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

export const SYNCED_ENTITIES = ['poi', 'category', 'member'] as const;
export type SyncedEntity = (typeof SYNCED_ENTITIES)[number];

/** What syncs, by entity: each entity's fields as the central stores them (POIs: the field table's columns). */
export const SYNCED_FIELDS = {
  poi: [...POI_FIELDS.map((f) => f.column), 'categories', 'created_by', 'registered_at'],
  category: ['description', 'deleted_at'],
  // The password travels as its hash (argon2id), never in clear; tokens never travel: each desktop issues its own.
  member: ['username', 'email', 'pwd_hash', 'gender', 'birthday', 'email_verified', 'registered_at'],
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

export interface PushReply {
  /** Applied now, or already applied by an earlier try of the same push. */
  applied: number;
  /** Conflicts recorded by this push (see the client's policy). */
  conflicts: number;
}

/** One row of the central as a pull gives it: its current state (or its tombstone), at its place on the change sequence. */
export interface PulledRow {
  entity: SyncedEntity;
  uuid: string;
  seq: number;
  version: number;
  deleted: boolean;
  fields: Record<string, FieldValue>;
}

/** The most rows one pull gives: a first pull of a million POIs goes page by page, in bounded memory. */
export const MAX_PULL = 5000;

export interface PullReply {
  rows: PulledRow[];
  /** The cursor to ask from next; equal to the one given when nothing is newer. */
  cursor: number;
  /** Whether more rows wait after this page. */
  more: boolean;
}

export const CONFLICT_POLICIES = ['last-writer-wins', 'manual'] as const;
export type ConflictPolicy = (typeof CONFLICT_POLICIES)[number];

/** A conflict as the central keeps it: one field (or, for an edit against a delete, the whole row). */
export interface ConflictReply {
  id: number;
  entity: SyncedEntity;
  uuid: string;
  /** What a person calls it now: the POI's name, the category's, the member's username. */
  label: string | null;
  /** null: an edit against a delete. */
  field: string | null;
  base: FieldValue | Record<string, FieldValue>;
  mine: FieldValue | Record<string, FieldValue>;
  theirs: FieldValue | Record<string, FieldValue> | 'deleted';
  device: string | null;
  at: string;
  /** What the central kept: the pushed value (last writer wins) or its own (manual). */
  kept: 'mine' | 'theirs';
}
