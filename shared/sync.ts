import { z } from 'zod';
import { fieldNames, SYNC_ENTITIES, SYNCED_ENTITIES, sortedRefs, UUID, type FieldValue, type SyncedEntity } from './sync-entities.js';

/**
 * The sync protocol between a desktop and the central (docs/sync.md), declared once: the desktop
 * builds its requests with these types, and the central checks them with these schemas. What
 * each entity carries is declared in shared/sync-entities.ts.
 *
 * Identity across machines is the UUID: integer ids stay local to each desktop. A category is
 * named by its UUID, or, for the system categories (the same ids on every desktop), as `system:N`.
 */

/** A UUID in any case, taken in lower case: one row, one spelling (a row of another client is then recognised as such). */
const uuid = z.string().toLowerCase().regex(UUID, 'must be a UUID');

/** The most characters of one text value on the wire: every synced text field's rule allows far fewer. */
export const MAX_WIRE_TEXT = 100_000;

/** The most items of a list value (category references) on the wire. */
const MAX_WIRE_LIST = 1000;

const isFieldValue = (v: unknown): boolean =>
  v === null ||
  (typeof v === 'string' && v.length <= MAX_WIRE_TEXT) ||
  (typeof v === 'number' && Number.isFinite(v)) ||
  (Array.isArray(v) && v.length <= MAX_WIRE_LIST && v.every((s) => typeof s === 'string' && s.length <= 100));

/**
 * A field's value on the wire: text, number (dates as epoch milliseconds), a list of category
 * refs, or null. Each field's own rule (sync-entities.ts) is checked by the central per change,
 * so that one bad change is refused alone; this checks the shape only, as one plain test (a
 * union of four schemas tried in turn cost 13 of the 20 us a pushed change took to read).
 * FIELD_VALUE_JSON_SCHEMA says the same for the OpenAPI document.
 */
export const fieldValue = z.custom<FieldValue>(isFieldValue, 'must be text, a number, a list of category references, or null');

export const FIELD_VALUE_JSON_SCHEMA = {
  anyOf: [{ type: 'string', maxLength: MAX_WIRE_TEXT }, { type: 'number' }, { type: 'array', maxItems: MAX_WIRE_LIST, items: { type: 'string', maxLength: 100 } }, { type: 'null' }],
} as const;

/**
 * An operation id, unique over all time and devices: the pushing device's id, then either the
 * change's own id (a UUID its change log drew when the change was made, so a restored file hands
 * out new ones) or, for the data a desktop held before its first sync, `snapshot:<id of that
 * snapshot>:<entity>:<uuid>`. A log written before operation ids existed gives its seq instead.
 * The central applies each (device, op) once and refuses a push naming another device's ops.
 */
export const opOf = (device: string, id: string): string => `${device}:${id}`;
export const deviceOfOp = (op: string): string => op.slice(0, op.indexOf(':'));

/**
 * One local change, as pushed. `fields` holds each field it changed as [base, mine]: the value
 * it had before this change (what the desktop last saw) and the value it wrote; a delete gives
 * every field's base, empty ones included, so that an edit the deleting desktop never saw is
 * always a conflict. The central merges field by field against its current value: its own value
 * equal to the base means only this desktop changed it (applied); equal to mine, already
 * applied; anything else, both sides changed it: a conflict.
 *
 * `state`, on the last change of a row in a push, is the row as the desktop holds it now (every
 * synced field, or "deleted"): when the central's row after the merge is the same, the desktop
 * already has it, and its pulls skip it (neither received nor applied again).
 */
export const pushedChange = z
  .object({
    op: z.string().min(3).max(200),
    entity: z.enum(SYNCED_ENTITIES),
    uuid,
    kind: z.enum(['create', 'update', 'delete']),
    fields: z.record(z.string().max(40), z.tuple([fieldValue, fieldValue])),
    /** When it was made on the desktop, epoch ms (at most JavaScript's last date). */
    at: z.number().int().nonnegative().max(8.64e15),
    state: z.union([z.record(z.string().max(40), fieldValue), z.literal('deleted')]).optional(),
  })
  .superRefine((c, ctx) => {
    const known = fieldNames(c.entity);
    for (const field of Object.keys(c.fields)) {
      if (!known.includes(field)) ctx.addIssue({ code: 'custom', message: `${c.entity} has no synced field ${field}`, path: ['fields', field] });
    }
  });
export type PushedChange = z.infer<typeof pushedChange>;

/** The most changes one push carries: one transaction on the central, bounded. */
export const MAX_PUSH = 1000;

/** The last change of the desktop's own log that a push covers: what the central remembers of the device, to tell a restored file (hello's `mark`). */
export const logMark = z.object({ op: z.string().min(3).max(200), seq: z.number().int().positive() });
export type LogMark = z.infer<typeof logMark>;

export const pushRequest = z.object({
  changes: z.array(pushedChange).max(MAX_PUSH, `at most ${MAX_PUSH} changes per push`),
  mark: logMark.optional(),
});
export type PushRequest = z.infer<typeof pushRequest>;

/**
 * A change the central would not apply, and why; the rest of its push applied. 400: a value
 * breaks the API's rules (the field says which); 409: it cannot apply there (an update or delete
 * of a row the central never had, whose creation was refused or never sent).
 */
export const refusedChange = z.object({
  op: z.string(),
  entity: z.enum(SYNCED_ENTITIES),
  uuid,
  status: z.union([z.literal(400), z.literal(409)]),
  field: z.string().nullable(),
  message: z.string(),
});
export type RefusedChange = z.infer<typeof refusedChange>;

export const pushReply = z.object({
  /** Applied now, or already applied by an earlier try of the same push. */
  applied: z.number().int(),
  /** Conflicts recorded by this push (see the client's policy). */
  conflicts: z.number().int(),
  /** Changes refused one by one (absent from replies of older centrals). */
  refused: z.array(refusedChange).default([]),
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
  /** The cursor to ask from next; equal to the one given when nothing is newer. Past the rows skipped as the asking device's own. */
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
  device_name: z.string().optional(),
  client_id: uuid,
  client_name: z.string().nullable(),
  policy: z.enum(CONFLICT_POLICIES),
  /** The last change of this device's log the central applied: a desktop whose log holds another change at that seq was restored. */
  mark: logMark.nullable().optional(),
});
export type HelloReply = z.infer<typeof helloReply>;

const conflictSide = z.union([fieldValue, z.record(z.string(), fieldValue), z.literal('deleted')]);

/** What a conflict is about: one field both sides changed, an edit against a delete, or a value two rows may not share. */
export const CONFLICT_KINDS = ['field', 'delete', 'clash'] as const;

/** A conflict as the central keeps it: one field (or, for an edit against a delete, the whole row). `mine` is the pushed side, `theirs` the central's before it. */
export const conflictReply = z.object({
  id: z.number().int(),
  kind: z.enum(CONFLICT_KINDS).default('field'),
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
  /** The central's value when the push arrived ("deleted" when it had been deleted); in a clash, the other row's value. */
  theirs: conflictSide,
  /** The device that pushed `mine`, and its name. */
  device: uuid.nullable(),
  device_name: z.string().nullable().default(null),
  /** The device whose push left `theirs` on the central (null when the central does not know). */
  other_device: uuid.nullable().default(null),
  other_device_name: z.string().nullable().default(null),
  /** In a clash: the other row, which holds the same value. */
  other_uuid: uuid.nullable().default(null),
  other_label: z.string().nullable().default(null),
  at: z.string(),
  /** What the central kept: the pushed value (last writer wins) or its own (manual). */
  kept: z.enum(['mine', 'theirs']),
});
export type ConflictReply = z.infer<typeof conflictReply>;

/**
 * How a desktop resolves a conflict on the central (`POST /sync/conflicts/ID/resolve`), which
 * writes the outcome as a new version of the rows concerned, so every desktop pulls it:
 * - keep one side: `pushed` (the conflict's mine) or `earlier` (its theirs); for an edit against
 *   a delete, keeping the edit brings the row back under its uuid;
 * - a value of one's own for the field;
 * - a clash: rename one of the two rows (`to` checked by the field's rule), or merge them (the
 *   dropped row's references move to the kept one, and it is deleted).
 */
export const resolution = z.union([
  z.object({ keep: z.enum(['pushed', 'earlier']) }),
  z.object({ value: fieldValue }),
  z.object({ rename: z.object({ uuid, to: z.string().min(1).max(300) }) }),
  z.object({ merge: z.object({ keep: uuid, drop: uuid }) }),
]);
export type Resolution = z.infer<typeof resolution>;

/** Whether a row as one side holds it is the row as the other does: every synced field equal (categories as sets), or both deleted. */
export function sameRow(entity: SyncedEntity, fields: Readonly<Record<string, FieldValue | undefined>> | 'deleted', other: Readonly<Record<string, FieldValue | undefined>> | 'deleted'): boolean {
  if (fields === 'deleted' || other === 'deleted') return fields === other;
  return SYNC_ENTITIES[entity].fields.every((f) => {
    const a = fields[f.name] ?? null;
    const b = other[f.name] ?? null;
    if (!Array.isArray(a) || !Array.isArray(b)) return a === b;
    const [x, y] = f.kind === 'refs' ? [sortedRefs(a), sortedRefs(b)] : [a, b];
    return x.length === y.length && x.every((v, i) => v === y[i]);
  });
}
