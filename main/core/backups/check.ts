import BetterSqlite3, { type Database } from 'better-sqlite3';
import { openDatabase } from '../store/database.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import { ServiceError } from '../errors.js';
import { bindingOption } from '../store/database-file.js';

export const refused = (why: string, cause?: unknown): ServiceError => new ServiceError('BACKUP_REFUSED', `${why}; nothing was changed`, undefined, { cause });

const LATEST = MIGRATIONS.length;

/** The tables, indexes and triggers a database holds, by name (not the SQLite internals). */
const schemaNames = (db: Database): string[] =>
  db
    .prepare<[], string>("SELECT type || ' ' || name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY 1")
    .pluck()
    .all();

/** The schema version a file says it has, read without changing it; refuses what is no SQLite database. */
function versionOf(file: string, nativeBinding: string | undefined): number {
  let db: Database | undefined;
  try {
    db = new BetterSqlite3(file, { readonly: true, fileMustExist: true, ...bindingOption(nativeBinding) });
    const version = db.pragma('user_version', { simple: true });
    return typeof version === 'number' ? version : 0;
  } catch (error) {
    throw refused(`the file is not a SQLite database (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    db?.close();
  }
}

/** What a candidate must match of the live database: its tables, indexes and triggers, and its page size. */
export interface LiveShape {
  schema: string[];
  pageSize: number;
}

export const liveShape = (db: Database): LiveShape => ({ schema: schemaNames(db), pageSize: Number(db.pragma('page_size', { simple: true })) });

/**
 * Makes a private working copy of a candidate for restore fit to be copied in: a database of this
 * application (schema 1 to this build's), sound by `PRAGMA integrity_check`, brought up to this
 * build's schema (an older backup is upgraded as the application would upgrade it), with the same
 * tables, indexes and triggers as the live database and its page size (SQLite cannot copy pages of
 * another size into a database in WAL mode). The copy is left in rollback-journal mode: one file.
 */
export function prepareCandidate(copy: string, live: LiveShape, nativeBinding: string | undefined): void {
  const version = versionOf(copy, nativeBinding);
  if (version === 0) throw refused('the file is not a database of this application (it has no schema version)');
  if (version > LATEST) throw refused(`the file was written by a newer version of the application (schema ${version}; this version knows up to ${LATEST})`);
  let db: Database;
  try {
    db = openDatabase(copy, bindingOption(nativeBinding));
  } catch (error) {
    // The first line: the rest of a damaged-file message is advice about the working copy's folder.
    throw refused(`the file cannot be opened as this application's database (${(error instanceof Error ? error.message : String(error)).split('\n')[0]})`);
  }
  try {
    const verdict = db.pragma('integrity_check', { simple: true });
    if (verdict !== 'ok') throw refused(`the file is damaged (integrity_check: ${String(verdict)})`);
    const want = live.schema.join('\n');
    if (schemaNames(db).join('\n') !== want) throw refused('the file is not a database of this application (its tables differ)');
    db.pragma('journal_mode = DELETE');
    if (db.pragma('page_size', { simple: true }) !== live.pageSize) {
      db.pragma(`page_size = ${live.pageSize}`);
      // VACUUM keeps the rowids of tables with an index (clients has its key's), which the R*Tree
      // and the map's cells key clients by; it would renumber a table with none.
      db.exec('VACUUM');
    }
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    throw refused(`the file is damaged (${error instanceof Error ? error.message : String(error)})`);
  } finally {
    db.close();
  }
}
