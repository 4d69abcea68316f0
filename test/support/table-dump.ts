import BetterSqlite3, { type Database } from 'better-sqlite3';

/**
 * Every table of a database (sqlite_master's, the R*Tree's shadow tables and sqlite_sequence
 * included), each as its rows in a stable order, and the schema version: two dumps are equal
 * when the databases hold the same data.
 */
export function tableDump(source: string | Database): Record<string, string[]> {
  const db = typeof source === 'string' ? new BetterSqlite3(source, { readonly: true }) : source;
  try {
    const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    const dump: Record<string, string[]> = { user_version: [String(db.pragma('user_version', { simple: true }))] };
    for (const table of tables) {
      const rows = db.prepare(`SELECT * FROM "${table.replace(/"/g, '""')}"`).all();
      dump[table] = rows.map((row) => JSON.stringify(row)).sort();
    }
    return dump;
  } finally {
    if (typeof source === 'string') db.close();
  }
}
