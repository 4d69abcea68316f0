import type { Migration } from '../migration.js';
import { migration001 } from './001-membership.js';
import { migration002 } from './002-pois.js';
import { migration003 } from './003-settings.js';
import { migration004 } from './004-stable-identity-folded-text.js';
import { migration005 } from './005-attempt-counts.js';
import { migration006 } from './006-rtree-per-client.js';
import { migration007 } from './007-change-log.js';
import { migration008 } from './008-lighter-change-log.js';
import { migration009 } from './009-partial-address-indexes.js';
import { migration010 } from './010-undo.js';
import { migration011 } from './011-sync-state.js';
import { migration012 } from './012-poi-merges.js';
import { migration013 } from './013-map-grid.js';
import { migration014 } from './014-sync-identity.js';
import { migration015 } from './015-jobs.js';
import { migration016 } from './016-name-lookup.js';
import { migration017 } from './017-grid-where-dense.js';
import { migration018 } from './018-geocoded-fields.js';

/** In version order; a new schema version is one new file and one line here. */
export const MIGRATIONS: readonly Migration[] = [migration001, migration002, migration003, migration004, migration005, migration006, migration007, migration008, migration009, migration010, migration011, migration012, migration013, migration014, migration015, migration016, migration017, migration018];
