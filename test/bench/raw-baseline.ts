import type { Actor } from '../../main/core/store/write-path.js';
import { registerChangeFunctions } from '../../main/core/store/write-path.js';
import { INSERTED } from '../../main/core/pois/poi-store.js';
import type { OpenCore } from '../support/core.js';

/** A POI as the store writes it: every column of INSERTED (poi-store.ts), folded `*_key` columns included. */
export type StoredRow = Record<(typeof INSERTED)[number], unknown>;

/**
 * The baseline an import or a pull is held to: `rows`, made before the clock starts, written by
 * one plain INSERT each into `core`'s file through this tree's triggers (R*Tree, category links,
 * map grid, change log under `actor`), `perTransaction` rows per transaction (Infinity: one).
 * No check, no parsing, no duplicate search, no event-loop turns. Answers the seconds it took.
 */
export function rawInsertSeconds(core: OpenCore, rows: readonly StoredRow[], actor: Actor, perTransaction = Infinity): number {
  const db = core.db;
  registerChangeFunctions(db, Date.now, () => actor);
  const insert = db.prepare(`INSERT INTO pois (${INSERTED.join(', ')}) VALUES (${INSERTED.map((c) => `@${c}`).join(', ')})`);
  const page = db.transaction((slice: readonly StoredRow[]) => {
    for (const row of slice) insert.run(row);
  });
  const size = Math.min(perTransaction, rows.length || 1);
  const t0 = performance.now();
  for (let from = 0; from < rows.length; from += size) page.immediate(rows.slice(from, from + size));
  return (performance.now() - t0) / 1000;
}
