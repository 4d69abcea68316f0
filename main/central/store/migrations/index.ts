import type { CentralMigration } from '../migration.js';
import { central001 } from './001-central.js';
import { central002 } from './002-sync-identity.js';

/** In version order; a new version is one new file and one line here. */
export const CENTRAL_MIGRATIONS: readonly CentralMigration[] = [central001, central002];
