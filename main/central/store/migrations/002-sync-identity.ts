import type { CentralMigration } from '../migration.js';

/*
 * What this migration read of shared/, copied as it was, so that a later edit there does not
 * change what it writes: the system categories (shared/system-categories.ts) and the keys unique
 * among a client's live rows, with their folds (`uniqueKeys` of shared/sync-entities.ts,
 * `sameNameKey` and `foldText` of shared/text-fold.ts). Sync writes and compares these columns
 * with the live declarations, so the two must agree (test/core/frozen-migrations.test.ts): a new
 * fold or list needs a migration of its own.
 */

/** The built-in categories, `system:1`, `system:2`... in this order. */
export const SYSTEM_CATEGORIES_002 = [
  'Restaurant',
  'Café and bar',
  'Hotel and lodging',
  'Shop',
  'Supermarket',
  'Museum',
  'Monument and landmark',
  'Park and garden',
  'Beach',
  'Viewpoint',
  'Hospital and clinic',
  'Pharmacy',
  'School and university',
  'Library',
  'Public transport stop',
  'Train station',
  'Airport',
  'Fuel station',
  'EV charging',
  'Parking',
  'Bank and ATM',
  'Post office',
  'Police',
  'Place of worship',
  'Sports facility',
  'Theatre and cinema',
  'Public toilet',
  'Drinking water',
  'Tourist information',
  'Other',
] as const;

const ACCENTS_002 = /[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]/g;

function foldText002(text: string): string {
  return text.normalize('NFKD').replace(ACCENTS_002, '').toLowerCase().toUpperCase().toLowerCase().normalize('NFC');
}

function sameNameKey002(text: string): string {
  return foldText002(text).replace(/\s+/gu, ' ').trim();
}

export interface UniqueKey002 {
  field: string;
  column: string;
  fold: (value: string) => string;
}

/** Each entity's table and its unique keys, with the fold each column keeps. */
export const UNIQUE_KEYS_002: Readonly<Record<'member' | 'category', { table: string; keys: readonly UniqueKey002[] }>> = {
  member: {
    table: 'members',
    keys: [
      { field: 'username', column: 'username_key', fold: (s: string): string => s.toLowerCase() },
      { field: 'email', column: 'email_key', fold: (s: string): string => s.toLowerCase() },
    ],
  },
  category: { table: 'categories', keys: [{ field: 'description', column: 'name_key', fold: sameNameKey002 }] },
};

const SYNCED_TABLES = ['pois', 'categories', 'members', 'warnings'] as const;

/**
 * Sync that never loses an edit (docs/sync.md#what-you-can-count-on):
 * - an operation is applied once per (device, op id), no longer per op id alone, so that no
 *   device can claim another's operations;
 * - each device's `mark`: the last change of its log the central applied, by which a desktop
 *   tells that its file was restored;
 * - each row's `written_by` (the device whose push wrote it last), `writers` (the fields another
 *   device wrote last: a conflict names who wrote the value it met) and `echo_of` (the device that
 *   already holds it exactly as it is: its pulls skip it);
 * - uniqueness is no longer an index that refuses a whole push: members keep their folded
 *   username and e-mail, categories their folded name, indexed, and a push that makes two live
 *   rows share one records a clash (a conflict) instead;
 * - conflicts say what kind they are and who wrote the other side;
 * - the system categories with their names (`system:N`), which pushes are checked against and
 *   `pois_public` names;
 * - `pois_public`: the live POIs with their categories' names, for map readers (QGIS), who are
 *   granted that view alone (docs/central.md).
 */
export const central002: CentralMigration = {
  version: 2,
  name: 'sync identity',
  async up(db) {
    await db.query(`
      ALTER TABLE applied_ops DROP CONSTRAINT applied_ops_pkey;
      ALTER TABLE applied_ops ADD PRIMARY KEY (device_id, op_id);
      ALTER TABLE devices ADD COLUMN mark_op text, ADD COLUMN mark_seq bigint;
      ${SYNCED_TABLES.map((t) => `ALTER TABLE ${t} ADD COLUMN written_by uuid, ADD COLUMN writers jsonb NOT NULL DEFAULT '{}', ADD COLUMN echo_of uuid;`).join('\n')}

      DROP INDEX members_username;
      ALTER TABLE members ADD COLUMN username_key text, ADD COLUMN email_key text;
      ALTER TABLE categories ADD COLUMN name_key text;

      ALTER TABLE conflicts
        ADD COLUMN kind text NOT NULL DEFAULT 'field' CHECK (kind IN ('field', 'delete', 'clash')),
        ADD COLUMN other_device_id uuid REFERENCES devices(id),
        ADD COLUMN other_uuid uuid;
      UPDATE conflicts SET kind = 'delete' WHERE field IS NULL;

      CREATE TABLE system_categories (id integer PRIMARY KEY, description text NOT NULL);
    `);
    // Folded as the desktops fold them (UNIQUE_KEYS_002 above), which SQL's lower() may not do alike in every locale.
    for (const entity of ['member', 'category'] as const) {
      const { table, keys } = UNIQUE_KEYS_002[entity];
      const { rows } = await db.query<Record<string, string>>(`SELECT uuid::text, ${keys.map((k) => k.field).join(', ')} FROM ${table}`);
      for (const row of rows) {
        await db.query(`UPDATE ${table} SET ${keys.map((k, i) => `${k.column} = $${i + 2}`).join(', ')} WHERE uuid = $1`, [row.uuid, ...keys.map((k) => k.fold(row[k.field] ?? ''))]);
      }
    }
    await db.query(`
      ALTER TABLE members ALTER COLUMN username_key SET NOT NULL, ALTER COLUMN email_key SET NOT NULL;
      CREATE INDEX members_by_username ON members (client_id, username_key) WHERE deleted_at IS NULL;
      CREATE INDEX members_by_email ON members (client_id, email_key) WHERE deleted_at IS NULL;
      ALTER TABLE categories ALTER COLUMN name_key SET NOT NULL;
      CREATE INDEX categories_by_name ON categories (client_id, name_key) WHERE deleted_at IS NULL;
    `);
    await db.query('INSERT INTO system_categories (id, description) SELECT n, d FROM unnest($1::text[]) WITH ORDINALITY AS s(d, n)', [SYSTEM_CATEGORIES_002]);
    await db.query(`
      CREATE VIEW pois_public AS
        SELECT p.uuid, p.client_id, p.name, p.description, p.lat, p.lng, p.elevation, p.accuracy, p.vaccuracy,
          p.address, p.cross_street, p.city, p.country, p.postal_code, p.phone, p.twitter,
          ARRAY(
            SELECT coalesce(c.description, s.description)
            FROM unnest(p.categories) WITH ORDINALITY AS r(ref, n)
            LEFT JOIN categories c ON c.uuid::text = r.ref AND c.client_id = p.client_id
            LEFT JOIN system_categories s ON r.ref = 'system:' || s.id
            ORDER BY r.n
          ) AS categories,
          p.registered_at, p.updated_at, p.geog
        FROM pois p WHERE p.deleted_at IS NULL;
    `);
  },
};
