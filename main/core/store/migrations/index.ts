import type { Migration } from '../migration.js';
import { migration001 } from './001-membership.js';

/** In version order; a new schema version is one new file and one line here. */
export const MIGRATIONS: readonly Migration[] = [migration001];
