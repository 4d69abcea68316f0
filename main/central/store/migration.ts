import type { PoolClient } from 'pg';

/** One version of the central schema: applied once, in the transaction that records it. */
export interface CentralMigration {
  version: number;
  name: string;
  up(db: PoolClient): Promise<void>;
}
