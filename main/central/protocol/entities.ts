import { POI_FIELDS } from '../../../shared/poi-fields.js';
import { SYNCED_FIELDS, type FieldValue, type SyncedEntity } from '../../../shared/sync.js';

/** How the central stores one synced entity: its table, each field's type, and which are timestamps or booleans. */
interface EntityTable {
  table: string;
  /** Each synced field's SQL type as it travels (timestamps as float8 epoch ms, booleans as int). */
  types: Record<string, string>;
  timestamps: readonly string[];
  booleans?: readonly string[];
  /** The row's own creation column, set on insert. */
  created: string;
}

export const TABLES: Record<SyncedEntity, EntityTable> = {
  poi: {
    table: 'pois',
    types: { ...Object.fromEntries(POI_FIELDS.map((f) => [f.column, f.kind === 'text' ? 'text' : 'float8'])), categories: 'text[]', created_by: 'uuid', registered_at: 'float8' },
    timestamps: ['registered_at'],
    created: 'registered_at',
  },
  category: { table: 'categories', types: { description: 'text', deleted_at: 'float8' }, timestamps: ['deleted_at'], created: 'created_at' },
  member: {
    table: 'members',
    types: { username: 'text', email: 'text', pwd_hash: 'text', gender: 'text', birthday: 'text', email_verified: 'int', registered_at: 'float8' },
    timestamps: ['registered_at'],
    booleans: ['email_verified'],
    created: 'created_at',
  },
  warning: {
    table: 'warnings',
    types: { poi_uuid: 'uuid', type: 'text', member_id: 'uuid', data: 'text', created_at: 'float8' },
    timestamps: ['created_at'],
    created: 'created_at',
  },
};

/** A field as SQL reads it: timestamps as whole epoch ms (double precision, so `pg` gives a number; the desktop keeps integers). */
export const selectField = (entity: SyncedEntity, field: string): string =>
  TABLES[entity].timestamps.includes(field)
    ? `round(extract(epoch FROM ${field}) * 1000)::float8 AS ${field}`
    : TABLES[entity].booleans?.includes(field)
      ? `${field}::int AS ${field}`
      : field;

/** A value of a JSON record set (`x.field`) as SQL writes it: epoch ms back to a timestamp, 0/1 to a boolean. */
export const writeField = (entity: SyncedEntity, field: string, expr: string): string =>
  TABLES[entity].timestamps.includes(field) ? `to_timestamp(${expr} / 1000)` : TABLES[entity].booleans?.includes(field) ? `(${expr})::boolean` : expr;

export const fieldsOf = (entity: SyncedEntity): readonly string[] => SYNCED_FIELDS[entity];

/** Whether an entity's deletion is one of its fields (a category's deleted_at) rather than a tombstone column of its own. */
export const deletionIsField = (entity: SyncedEntity): boolean => fieldsOf(entity).includes('deleted_at');

/** The values the central compares: JSON equality (numbers, text, null, category lists in order). */
export const sameValue = (a: FieldValue | undefined, b: FieldValue | undefined): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
