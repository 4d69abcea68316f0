import { CENTRAL_TYPES, entityOf, fieldNames, fingerprint, SYNC_ENTITIES, type FieldValue, type SyncedEntity } from '../../../shared/sync-entities.js';

/**
 * How the central stores each synced entity, derived from its declaration
 * (shared/sync-entities.ts): the table, each field's SQL type as it travels, and how a field is
 * read and written (times as epoch ms over timestamptz, flags as 0/1 over boolean).
 */
export const tableOf = (entity: SyncedEntity): string => SYNC_ENTITIES[entity].table;
export const fieldsOf = (entity: SyncedEntity): readonly string[] => fieldNames(entity);

const kindOf = (entity: SyncedEntity, field: string) => SYNC_ENTITIES[entity].fields.find((f) => f.name === field)?.kind;

/** A field's SQL type in a JSON record set. */
export const typeOf = (entity: SyncedEntity, field: string): string => CENTRAL_TYPES[kindOf(entity, field) ?? 'text'];

/** A field as SQL reads it: times as whole epoch ms (double precision, so `pg` gives a number; the desktop keeps integers), flags as 0/1. */
export function selectField(entity: SyncedEntity, field: string, table = ''): string {
  const column = `${table}${field}`;
  const kind = kindOf(entity, field);
  if (kind === 'time') return `round(extract(epoch FROM ${column}) * 1000)::float8 AS ${field}`;
  if (kind === 'flag') return `${column}::int AS ${field}`;
  if (kind === 'uuid') return `${column}::text AS ${field}`;
  return `${column} AS ${field}`;
}

/** A value of a JSON record set (`x.field`) as SQL writes it: epoch ms back to a timestamp, 0/1 to a boolean. */
export function writeField(entity: SyncedEntity, field: string, expr: string): string {
  const kind = kindOf(entity, field);
  if (kind === 'time') return `to_timestamp(${expr} / 1000)`;
  if (kind === 'flag') return `(${expr})::boolean`;
  return expr;
}

/** Whether an entity's deletion is one of its fields (a category's deleted_at) rather than a tombstone of the row. */
export const deletionField = (entity: SyncedEntity): string | undefined => entityOf(entity).deletionField;

/** The values the central compares: JSON equality (numbers, text, null, category lists in order; the desktop sends them sorted). */
export const sameValue = (a: FieldValue | undefined, b: FieldValue | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * A base against the central's value: a fingerprinted field (a password hash) may give its base
 * as the fingerprint the desktop's log kept.
 */
export function sameBase(entity: SyncedEntity, field: string, current: FieldValue | undefined, base: FieldValue | undefined): boolean {
  const declared = SYNC_ENTITIES[entity].fields.find((f) => f.name === field);
  if (declared && 'fingerprinted' in declared && typeof base === 'string' && base.startsWith('fp:')) {
    // 'fp:' alone: a change logged before fingerprints, whose base no one knows (the last one set wins, as then).
    // A stored fingerprint (the creation of a member deleted before its desktop sent it) stands for itself.
    return base === 'fp:' || current === base || (typeof current === 'string' && fingerprint(current) === base);
  }
  return sameValue(current, base);
}
