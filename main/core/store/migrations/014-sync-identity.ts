import { triggers } from './frozen/007-change-triggers.js';
import type { Migration } from '../migration.js';
import { LOGGED_010 } from './010-undo.js';

/**
 * Sync that never loses an edit (docs/sync.md#what-you-can-count-on), the desktop's side:
 * - every change gets its own id (`op_id`, drawn when it is logged), sync's operation id: a
 *   restored file hands out its seqs again, so `<device>:<seq>` named two different changes and
 *   the central dropped the second as already applied; the log's rows written before keep NULL
 *   and are sent under their seq, as before;
 * - a password change is logged with the fingerprints of the old and new hashes (a hash of
 *   each, never the hash), which sync compares the base of a password change by (two desktops changing one member's password apart
 *   is a conflict, no longer the last one silently winning);
 * - `sync_set_aside`: rows a pull brought that cannot be applied here (a value the rules refuse,
 *   a username another member holds here, a uuid of another client's row), each with its reason,
 *   so that the rest of their page applies and the sync goes on; tried again at every sync;
 * - `sync_refused`: this desktop's changes the central refused, each with its reason.
 * Neither table is logged: they are sync's bookkeeping, not data.
 */
export const migration014: Migration = {
  version: 14,
  name: 'sync identity',
  up(db) {
    const drops = LOGGED_010.flatMap((t) => ['create', 'update', 'delete'].map((op) => `DROP TRIGGER ${t.table}_logged_${op};`));
    db.exec(`
      ${drops.join('\n')}
      ALTER TABLE changes ADD COLUMN op_id TEXT;
      ${LOGGED_010.map((t) => triggers(t, { undoes: true, opId: true, fingerprints: true })).join('\n')}
      CREATE TABLE sync_set_aside (
        entity    TEXT NOT NULL,
        uuid      TEXT NOT NULL,
        client_id TEXT NOT NULL,
        seq       INTEGER NOT NULL,
        row       TEXT NOT NULL CHECK (json_valid(row)),
        reason    TEXT NOT NULL,
        at        INTEGER NOT NULL,
        PRIMARY KEY (entity, uuid)
      ) STRICT;
      CREATE TABLE sync_refused (
        op        TEXT PRIMARY KEY,
        entity    TEXT NOT NULL,
        uuid      TEXT NOT NULL,
        client_id TEXT NOT NULL,
        status    INTEGER NOT NULL,
        field     TEXT,
        message   TEXT NOT NULL,
        at        INTEGER NOT NULL
      ) STRICT;
    `);
  },
};
