import { triggers, type Logged } from './frozen/007-change-triggers.js';
import type { Migration } from '../migration.js';
import { LOGGED_008 } from './008-lighter-change-log.js';

/** A deleted POI's and report's tombstone holds their whole row: undo brings them back as they were. */
const TOMBSTONES: Readonly<Record<string, readonly string[]>> = {
  pois: ['registered_at', 'updated_at'],
  warnings: ['created_at', 'updated_at'],
};

/** What each table records as of this schema version. */
export const LOGGED_010: readonly Logged[] = LOGGED_008.map((t) => (TOMBSTONES[t.table] ? { ...t, tombstone: TOMBSTONES[t.table] } : t));

/**
 * Undo (main/core/changes/undo.ts). A change that reverses another says which (`undoes`, its
 * seq), so that history reads "undo of ..." and an import already undone is not undone twice;
 * the two partial indexes cost a write only when it is an undo or an import's.
 */
export const migration010: Migration = {
  version: 10,
  name: 'undo',
  up(db) {
    const drops = LOGGED_010.flatMap((t) => ['create', 'update', 'delete'].map((op) => `DROP TRIGGER ${t.table}_logged_${op};`));
    db.exec(`
      ${drops.join('\n')}
      ALTER TABLE changes ADD COLUMN undoes INTEGER;
      CREATE INDEX changes_undone ON changes (undoes) WHERE undoes IS NOT NULL;
      CREATE INDEX changes_of_imports ON changes (actor_id, seq) WHERE actor_kind = 'import';
      ${LOGGED_010.map((t) => triggers(t, { undoes: true })).join('\n')}
    `);
  },
};
