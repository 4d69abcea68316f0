import { SYNCED_FIELDS, type FieldValue, type SyncedEntity } from '../../../shared/sync.js';

/** How the central stores one synced entity: its table, and the fields kept as timestamps (epoch ms on the wire). */
interface EntityTable {
  table: string;
  timestamps: readonly string[];
  /** Fields kept as booleans (0 / 1 on the wire, as the desktop keeps them). */
  booleans?: readonly string[];
  /** Set on insert besides the fields: the row's own bookkeeping. */
  created: string;
}

export const TABLES: Record<SyncedEntity, EntityTable> = {
  poi: { table: 'pois', timestamps: ['registered_at'], created: 'registered_at' },
  category: { table: 'categories', timestamps: ['deleted_at'], created: 'created_at' },
  member: { table: 'members', timestamps: ['registered_at'], booleans: ['email_verified'], created: 'created_at' },
};

/** A field as SQL reads it: timestamps as whole epoch ms (double precision, so `pg` gives a number; the desktop keeps integers). */
export const selectField = (entity: SyncedEntity, field: string): string =>
  TABLES[entity].timestamps.includes(field)
    ? `round(extract(epoch FROM ${field}) * 1000)::float8 AS ${field}`
    : TABLES[entity].booleans?.includes(field)
      ? `${field}::int AS ${field}`
      : field;

/** A placeholder as SQL writes it: epoch ms back to a timestamp. */
export const writeField = (entity: SyncedEntity, field: string, placeholder: string): string =>
  TABLES[entity].timestamps.includes(field)
    ? `to_timestamp(${placeholder}::float8 / 1000)`
    : TABLES[entity].booleans?.includes(field)
      ? `(${placeholder})::int::boolean`
      : placeholder;

export const fieldsOf = (entity: SyncedEntity): readonly string[] => SYNCED_FIELDS[entity];

/** The values the central compares: JSON equality (numbers, text, null, category lists in order). */
export const sameValue = (a: FieldValue | undefined, b: FieldValue | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
