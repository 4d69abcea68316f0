import type { Migration } from '../migration.js';
import { migration001 } from './001-membership.js';
import { migration002 } from './002-pois.js';

/** In version order; a new schema version is one new file and one line here. */
export const MIGRATIONS: readonly Migration[] = [migration001, migration002];
