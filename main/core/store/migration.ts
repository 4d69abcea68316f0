import type { Database } from 'better-sqlite3';

/** One schema version: applied once, inside a transaction that also sets user_version. */
export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}
