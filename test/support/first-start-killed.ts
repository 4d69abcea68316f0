import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../../main/core/store/database.js';

/**
 * `node --import tsx test/support/first-start-killed.ts FILE`: a first start of the database at
 * FILE that SIGKILLs itself at the worst moment, as a power cut would: SQLite has created a file
 * and is about to write its first page (the switch to WAL). Run by test/core/database-file.test.ts.
 */
const pragma = BetterSqlite3.prototype.pragma;
BetterSqlite3.prototype.pragma = function (this: BetterSqlite3.Database, source: string, options?: BetterSqlite3.PragmaOptions): unknown {
  if (source === 'journal_mode = WAL') process.kill(process.pid, 'SIGKILL');
  return pragma.call(this, source, options);
};
openDatabase(process.argv[2]!);
