import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The zone rules of docs/design.md#zones live in eslint.config.js, and `npm test` lints the whole
 * repository. Here the rules themselves are tested: a one-line source placed in each zone with
 * an import it may not have must fail the lint, and one with an import it may have must not.
 * Imports are matched by the file they resolve to, so the same target is tried at more than one
 * relative spelling.
 */
const root = join(import.meta.dirname, '..');
const eslint = new ESLint({ cwd: root });
const ZONE_RULES = new Set(['zones/imports', 'no-restricted-globals']);

/** The zone rules' complaints about `code` placed at `file` (other rules' findings are not the point here). */
async function zoneErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId !== null && ZONE_RULES.has(m.ruleId)).map((m) => m.message);
}

type Case = [file: string, code: string];

const FORBIDDEN: Record<string, Case[]> = {
  'shared/': [
    ['shared/x.ts', "import { readFileSync } from 'node:fs';"],
    ['shared/x.ts', "import { readFileSync } from 'fs';"],
    ['shared/x.ts', "import { join } from 'path/posix';"],
    ['shared/x.ts', "import { app } from 'electron';"],
    ['shared/x.ts', "import Database from 'better-sqlite3';"],
    ['shared/x.ts', "import { createRoot } from 'react-dom/client';"],
    ['shared/x.ts', "import L from 'leaflet';"],
    ['shared/x.ts', "import type { Core } from '../main/core/service.js';"],
    ['shared/schemas/x.ts', "export { keys } from '../../renderer/src/queries';"],
    ['shared/x.ts', "export const m = await import('node:fs');"],
    ['shared/x.ts', 'export const w = window.innerWidth;'],
    ['shared/x.ts', "export const v = localStorage.getItem('x');"],
    ['shared/x.ts', 'export const e = process.env.HOME;'],
  ],
  'main/core/': [
    ['main/core/x.ts', "import { app } from 'electron';"],
    ['main/core/x.ts', "import Fastify from 'fastify';"],
    ['main/core/x.ts', "import fastifyStatic from '@fastify/static';"],
    ['main/core/x.ts', "import { ApiServer } from '../http/server.js';"],
    ['main/core/pois/x.ts', "import { ApiServer } from '../../http/server.js';"],
    ['main/core/x.ts', "import { handleConsoleIpc } from '../desktop/ipc.js';"],
    ['main/core/x.ts', "import { createInvoke } from '../app/console.js';"],
    ['main/core/x.ts', "import { serve } from '../cli/serve.js';"],
    ['main/core/x.ts', "import '../cli.js';"],
    ['main/core/x.ts', "import { keys } from '../../renderer/src/queries';"],
    ['main/core/x.ts', "export const server = await import('../http/server.js');"],
    ['main/core/x.ts', "import pg from 'pg';"],
    ['main/core/x.ts', "import { migrateCentral } from '../central/store/migrate.js';"],
    // The sync client, whose old name (main/sync/) the core's own main/core/sync/ shares.
    ['main/core/x.ts', "import { SyncAgent } from '../sync-client/agent.js';"],
    ['main/core/pois/x.ts', "import type { SyncAgent } from '../../../main/sync-client/agent.js';"],
    ['main/core/sync/x.ts', "export const agent = await import('./../../sync-client/agent.js');"],
    // Spellings a pattern on the specifier did not foresee.
    ['main/core/x.ts', "import { ApiServer } from './../http/server.js';"],
    ['main/core/x.ts', "import { ApiServer } from '../core/../http/server.js';"],
  ],
  'main/central/': [
    ['main/central/x.ts', "import Database from 'better-sqlite3';"],
    ['main/central/x.ts', "import { app } from 'electron';"],
    ['main/central/store/x.ts', "import { Pois } from '../../core/pois/pois.js';"],
    ['main/central/x.ts', "import { serve } from '../cli/serve.js';"],
    ['main/central/x.ts', "import { SyncAgent } from '../sync-client/agent.js';"],
  ],
  // A migration imports no value from outside its folder (docs/design.md#zones), as well as its zone's bans.
  'main/core/store/migrations/': [
    ['main/core/store/migrations/x.ts', "import { sqlCellX } from '../../pois/grid.js';"],
    ['main/core/store/migrations/x.ts', "import { foldText } from '../../../../shared/text-fold.js';"],
    ['main/core/store/migrations/frozen/x.ts', "import { foldText } from '../../../../../shared/text-fold.js';"],
    ['main/core/store/migrations/x.ts', "export { SYSTEM_CATEGORIES } from '../../../../shared/system-categories.js';"],
    ['main/core/store/migrations/x.ts', "export * from '../../../../shared/system-categories.js';"],
    ['main/core/store/migrations/x.ts', "import '../../pois/grid.js';"],
    ['main/core/store/migrations/x.ts', "export const grid = await import('../../pois/grid.js');"],
    // Not type-only under verbatimModuleSyntax: the module is still loaded.
    ['main/core/store/migrations/x.ts', "import { type Migration } from '../migration.js';"],
    ['main/core/store/migrations/x.ts', "import { z } from 'zod';"],
    ['main/core/store/migrations/x.ts', "import { createHash } from 'node:crypto';"],
    // Spellings that pass through the folder, or share its name's start.
    ['main/core/store/migrations/x.ts', "import { sqlCellX } from '../migrations/../../pois/grid.js';"],
    ['main/core/store/migrations/x.ts', "import { x } from '../migrations-old/x.js';"],
    // The core's bans still hold, types included, and are reported once.
    ['main/core/store/migrations/x.ts', "import { app } from 'electron';"],
    ['main/core/store/migrations/x.ts', "import type { ApiServer } from '../../../http/server.js';"],
  ],
  'main/central/store/migrations/': [
    ['main/central/store/migrations/x.ts', "import { SYSTEM_CATEGORIES } from '../../../../shared/system-categories.js';"],
    ['main/central/store/migrations/x.ts', "import { centralPool } from '../pool.js';"],
    ['main/central/store/migrations/x.ts', "import pg from 'pg';"],
    ['main/central/store/migrations/x.ts', "import Database from 'better-sqlite3';"],
    ['main/central/store/migrations/x.ts', "import type { Migration } from '../../../core/store/migration.js';"],
  ],
  'main/http/': [
    ['main/http/x.ts', "import { app } from 'electron';"],
    ['main/http/routes/x.ts', "import { handleConsoleIpc } from '../../desktop/ipc.js';"],
    ['main/http/x.ts', "import { createInvoke } from '../app/console.js';"],
    ['main/http/x.ts', "import { serve } from '../cli/serve.js';"],
    ['main/http/x.ts', "import { keys } from '../../renderer/src/queries';"],
    ['main/http/x.ts', "import { SyncAgent } from '../sync-client/agent.js';"],
    ['main/http/routes/x.ts', "export { SyncAgent } from '../../sync-client/agent.js';"],
    ['main/http/x.ts', "import { migrateCentral } from '../central/store/migrate.js';"],
    ['main/http/x.ts', "import { rendererDir } from '../build/renderer-dir.js';"],
  ],
  'main/app/': [
    ['main/app/x.ts', "import { app } from 'electron';"],
    ['main/app/x.ts', "import { handleConsoleIpc } from '../desktop/ipc.js';"],
    ['main/app/x.ts', "import { serve } from '../cli/serve.js';"],
    ['main/app/x.ts', "import { keys } from '../../renderer/src/queries';"],
    ['main/app/x.ts', "import { migrateCentral } from '../central/store/migrate.js';"],
  ],
  'main/desktop/': [
    ['main/desktop/x.ts', "import { ListenerControl } from '../http/listener-control.js';"],
    ['main/desktop/x.ts', "import type { ApiServer } from '../http/server.js';"],
    ['main/desktop/x.ts', "export const control = await import('../http/listener-control.js');"],
    ['main/desktop/x.ts', "import { serve } from '../cli/serve.js';"],
    ['main/desktop/x.ts', "import { keys } from '../../renderer/src/queries';"],
    ['main/desktop/x.ts', "import pg from 'pg';"],
  ],
  'main/cli/, main/*.ts, main/build/': [
    ['main/cli/x.ts', "import { app } from 'electron';"],
    ['main/cli.ts', "import electron = require('electron');"],
    ['main/start.ts', "import { registerScheme } from './desktop/protocol.js';"],
    ['main/build/x.ts', "import { keys } from '../../renderer/src/queries';"],
    ['main/build/x.ts', "export const e = await import('electron');"],
  ],
  'renderer/': [
    ['renderer/src/x.ts', "import { createCore } from '../../main/core/service.js';"],
    ['renderer/src/panels/x.tsx', "import type { Core } from '../../../main/core/service';"],
    ['renderer/src/x.ts', "import { join } from 'node:path';"],
    ['renderer/src/x.ts', "import { join } from 'path';"],
    ['renderer/src/x.ts', "import { ipcRenderer } from 'electron';"],
    ['renderer/src/x.ts', "import Database from 'better-sqlite3';"],
    ['renderer/src/x.ts', 'export const e = process.env.HOME;'],
    ['renderer/src/x.ts', "export type Core = import('../../main/core/service.js').Core;"],
  ],
};

const ALLOWED: Case[] = [
  ['shared/x.ts', "import { z } from 'zod';"],
  ['shared/x.ts', "import { errorBody } from './errors.js';"],
  ['shared/schemas/x.ts', "import { nowSeconds } from '../time.js';"],
  ['main/core/x.ts', "import Database from 'better-sqlite3';"],
  ['main/core/x.ts', "import { readFileSync } from 'node:fs';"],
  ['main/core/pois/x.ts', "import { errorBody } from '../../../shared/errors.js';"],
  ['main/core/pois/x.ts', "import { ServiceError } from '../errors.js';"],
  ['main/core/x.ts', "import { dispatch } from './console/dispatch.js';"],
  // The core's own side of sync: main/core/sync/ is not the sync client, at any spelling.
  ['main/core/x.ts', "import { syncParts } from './sync/sync-parts.js';"],
  ['main/core/changes/x.ts', "import { outbox } from '../sync/outbox.js';"],
  ['main/sync-client/x.ts', "import type { SyncCore } from '../core/sync/sync-parts.js';"],
  ['main/app/x.ts', "import { SyncAgent } from '../sync-client/agent.js';"],
  ['main/desktop/x.ts', "import { SyncAgent } from '../sync-client/agent.js';"],
  ['main/cli/x.ts', "import { syncOnce } from '../sync-client/client.js';"],
  ['main/http/x.ts', "import Fastify from 'fastify';"],
  ['main/central/store/x.ts', "import pg from 'pg';"],
  ['main/central/store/x.ts', "import { POI_FIELDS } from '../../../shared/poi-fields.js';"],
  ['main/cli/x.ts', "import { migrateCentral } from '../central/store/migrate.js';"],
  ['main/http/routes/x.ts', "import type { Core } from '../../core/service.js';"],
  ['main/app/x.ts', "import { ApiServer } from '../http/server.js';"],
  ['main/app/x.ts', "export const control = await import('../http/listener-control.js');"],
  ['main/desktop/x.ts', "import { app } from 'electron';"],
  ['main/desktop/x.ts', "import { createInvoke } from '../app/console.js';"],
  ['main/desktop/x.ts', "import { createCore } from '../core/service.js';"],
  ['main/desktop/x.ts', "import { tileImageSource } from '../../shared/tiles.js';"],
  ['main/cli/x.ts', "import { ApiServer } from '../http/server.js';"],
  ['main/start.ts', "import { buildDesktop } from './build/desktop.js';"],
  ['main/build/x.ts', "import { build } from './desktop.js';"],
  ['renderer/src/x.ts', "import type { OpName } from '../../shared/contract';"],
  ['renderer/src/x.ts', "import { useQuery } from '@tanstack/react-query';"],
  ['renderer/src/x.ts', 'export const w = window.innerWidth;'],
  ['main/core/store/migrations/x.ts', "import type { Migration } from '../migration.js';"],
  ['main/core/store/migrations/x.ts', "import type { Database } from 'better-sqlite3';"],
  ['main/core/store/migrations/x.ts', "export type { Database } from 'better-sqlite3';"],
  ['main/core/store/migrations/x.ts', "export type Cell = import('../../pois/grid.js').Cell;"],
  ['main/core/store/migrations/x.ts', "import { LOGGED_010 } from './010-undo.js';"],
  ['main/core/store/migrations/x.ts', "import { triggers } from './frozen/007-change-triggers.js';"],
  ['main/core/store/migrations/frozen/x.ts', "import { SQL_UUID } from '../004-stable-identity-folded-text.js';"],
  ['main/core/store/migrations/index.ts', "import { migration001 } from './001-membership.js';"],
  ['main/central/store/migrations/x.ts', "import type { PoolClient } from 'pg';"],
  ['main/central/store/migrations/x.ts', "import type { CentralMigration } from '../migration.js';"],
  // Live code outside the migrations imports what it likes, the migrations included.
  ['main/core/pois/x.ts', "import { sqlCellX } from './grid.js';"],
  ['main/core/store/x.ts', "import { MIGRATIONS } from './migrations/index.js';"],
  ['test/x.test.ts', "import { app } from 'electron';"],
  ['test/x.test.ts', "import { ApiServer } from '../main/http/server.js';"],
];

describe('the zone rules of the linter', () => {
  for (const [zone, cases] of Object.entries(FORBIDDEN)) {
    it.each(cases)(`refuse in ${zone}: %s: %s`, async (file, code) => {
      // Once, and citing the design's reasons rather than only the rule's name.
      expect(await zoneErrors(file, code)).toEqual([expect.stringMatching(/\(docs\/design\.md#zones\)$/)]);
    });
  }

  it.each(ALLOWED)('let through: %s: %s', async (file, code) => {
    expect(await zoneErrors(file, code)).toEqual([]);
  });

  it('say where a relative import lands', async () => {
    expect(await zoneErrors('main/core/pois/x.ts', "import { SyncAgent } from '../../sync-client/agent.js';")).toEqual([
      expect.stringContaining("'../../sync-client/agent.js' is main/sync-client/agent.js: the sync client drives the core"),
    ]);
  });

  it('tell a migration where its values must come from', async () => {
    expect(await zoneErrors('main/core/store/migrations/x.ts', "import { sqlCellX } from '../../pois/grid.js';")).toEqual([
      expect.stringContaining("'../../pois/grid.js' is main/core/pois/grid.js: a migration imports no value from outside main/core/store/migrations/"),
    ]);
  });

  it('say why', async () => {
    expect(await zoneErrors('main/desktop/x.ts', "import { ListenerControl } from '../http/listener-control.js';")).toEqual([
      expect.stringContaining('the desktop reaches the listener through main/app'),
    ]);
  });
});
