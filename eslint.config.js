// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';
import zones from './eslint-rules/zones.js';

/**
 * The zones of docs/design.md#zones, enforced: each zone's files may not import what the zone
 * forbids (`import`, `export … from`, `import()`, `import x = require()`, `import('x').T`).
 * Arrows only point down: desktop, http and cli -> core -> shared; renderer -> shared; main/app
 * composes a core with its transports.
 *
 * The rule (eslint-rules/zones.js) resolves a relative import against the importing file and
 * matches where it lands, so `../sync-client/x.js`, `./../sync-client/x.js` and
 * `../../main/sync-client/x.js` are one import, and main/core/sync/ is not main/sync-client/.
 */

/** @typedef {import('./eslint-rules/zones.js').Ban} Ban */

const ROOT = import.meta.dirname;
/** Every zone message ends by citing where the zones are explained. @param {string} why */
const cite = (why) => `${why} (docs/design.md#zones)`;

const NODE = 'node builtins run in the main process only';
const nodeBuiltins = { packages: String.raw`^(node:|(${builtinModules.filter((m) => !m.startsWith('_')).join('|')})(/|$))`, message: NODE };
const electron = { packages: '^electron(/|$)', message: 'only main/desktop/ touches electron' };
const fastify = { packages: '^(@fastify/|(fastify|busboy)(/|$))', message: 'the HTTP framework belongs to main/http/' };
const nodeOnlyPackages = { packages: '^(@fastify/|@node-rs/|(better-sqlite3|fastify|busboy|tsx|esbuild)(/|$))', message: 'this package needs node: main process only' };
const postgres = { packages: '^pg(/|$)', message: 'only main/central talks to PostgreSQL: the desktop syncs with it over HTTP' };
const renderer = { paths: ['renderer'], message: 'the renderer is reached only through the contract in shared/' };
const entryPoints = { paths: ['main/cli', 'main/cli.ts', 'main/start.ts'], message: 'entry points and the CLI are at the top: nothing imports them' };

/** @type {Ban[]} */
const coreBans = [
  electron,
  fastify,
  postgres,
  { paths: ['main/http', 'main/desktop', 'main/app', 'main/central'], message: 'the core knows no transport: nothing from main/http, main/desktop, main/app or main/central' },
  // main/core/sync/ is the core's side of sync; the client that drives it sits above the core.
  { paths: ['main/sync-client'], message: 'the sync client drives the core through main/core/sync/: the core never calls it' },
  entryPoints,
  renderer,
];
/** @type {Ban[]} */
const centralBans = [
  electron,
  { packages: '^better-sqlite3(/|$)', message: "the central's store is PostgreSQL: SQLite is the desktop's" },
  { paths: ['main/core', 'main/http', 'main/desktop', 'main/app', 'main/sync-client'], message: 'the central shares rules with the desktop through shared/ only' },
  entryPoints,
  renderer,
];
/**
 * A migration must create tomorrow exactly what it created when it was written: a value imported
 * from live code would change it with that code. Its zone's bans come first (a later entry of a
 * rule replaces an earlier one's options for the files both match).
 * @param {string} folder @returns {Ban}
 */
const selfContained = (folder) => ({
  valuesOnlyFrom: [folder],
  message: `a migration imports no value from outside ${folder}/: copy what it uses into the migration or its frozen/ folder, named for it (import type is fine)`,
});

/** @type {Record<string, { files: string[], bans: Ban[] }>} */
const ZONES = {
  shared: {
    files: ['shared/**'],
    bans: [
      // Node builtins included: shared/ runs in every zone.
      // @noble/hashes is plain JavaScript (no node, no DOM): the password fingerprints both sides of sync compute (shared/sync-entities.ts).
      { packages: '^(?!(zod|@noble/hashes)(/|$))', message: 'shared/ runs in every zone (renderer too): it imports zod, @noble/hashes and itself only' },
      { paths: ['main', 'renderer'], message: 'shared/ imports nothing from main/ or renderer/' },
    ],
  },
  core: {
    files: ['main/core/**'],
    bans: coreBans,
  },
  'sync-client': {
    files: ['main/sync-client/**'],
    bans: [electron, fastify, postgres, { paths: ['main/http', 'main/desktop', 'main/app', 'main/central'], message: 'the sync client talks to the central over HTTP and to the core: nothing else' }, entryPoints, renderer],
  },
  central: {
    files: ['main/central/**'],
    bans: centralBans,
  },
  'core migrations': {
    files: ['main/core/store/migrations/**'],
    bans: [...coreBans, selfContained('main/core/store/migrations')],
  },
  'central migrations': {
    files: ['main/central/store/migrations/**'],
    bans: [...centralBans, selfContained('main/central/store/migrations')],
  },
  http: {
    files: ['main/http/**'],
    bans: [
      electron,
      postgres,
      { paths: ['main/desktop', 'main/app', 'main/central'], message: 'the listener knows no shell: nothing from main/desktop, main/app or main/central' },
      // Syncing and the page's build are the host's to start (main/app); the listener only routes onto the core.
      { paths: ['main/sync-client', 'main/build'], message: 'the listener routes onto the core: the sync client and the builds are composed by main/app' },
      entryPoints,
      renderer,
    ],
  },
  app: {
    files: ['main/app/**'],
    bans: [
      electron,
      postgres,
      { paths: ['main/desktop'], message: 'main/app composes core and http for every shell: nothing from main/desktop' },
      { paths: ['main/central'], message: 'the central is a service of its own: the desktop reaches it over HTTP, through main/sync-client' },
      entryPoints,
      renderer,
    ],
  },
  desktop: {
    files: ['main/desktop/**'],
    bans: [postgres, { paths: ['main/http', 'main/central'], message: 'the desktop reaches the listener through main/app: the HTTP framework stays out of its bundle' }, entryPoints, renderer],
  },
  entries: {
    files: ['main/cli/**', 'main/*.ts', 'main/build/**', 'renderer/vite.config.ts'],
    bans: [electron, { paths: ['main/desktop'], message: 'main/desktop runs inside Electron only: start it as a bundle' }, renderer],
  },
  renderer: {
    files: ['renderer/src/**'],
    bans: [nodeBuiltins, electron, nodeOnlyPackages, { paths: ['main'], message: 'the renderer talks to main only through the contract in shared/' }],
  },
};

/**
 * One zone's bans as the rule's options; the root is this folder, which the table's paths start from.
 * @param {Ban[]} bans @returns {import('eslint').Linter.RuleEntry<[import('./eslint-rules/zones.js').ZoneOptions]>}
 */
const zoneRule = (bans) => ['error', { root: ROOT, bans: bans.map((ban) => ({ ...ban, message: cite(ban.message) })) }];

const DOM_GLOBALS = ['window', 'document', 'localStorage', 'sessionStorage', 'navigator', 'location'];
const NODE_GLOBALS = ['process', 'Buffer', 'require', '__dirname', '__filename', 'global'];
const banGlobals = (/** @type {string[]} */ names, /** @type {string} */ message) => names.map((name) => ({ name, message }));

export default defineConfig(
  { ignores: ['dist/', 'out/', 'node_modules/', 'test/results/', 'scratch/', 'test/bench/results/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    // Named, so that another tsconfig.json below this folder (a checkout of an older version to
    // compare against) does not leave the parser unable to choose.
    languageOptions: { parserOptions: { tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      // `_` marks a parameter a signature requires and the body does not use (tsc's noUnusedParameters agrees).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
    },
  },
  { plugins: { zones } },
  ...Object.values(ZONES).map(({ files, bans }) => ({
    files,
    rules: { 'zones/imports': zoneRule(bans) },
  })),
  {
    // A sandboxed preload must be CommonJS, and `import x = require()` is how TypeScript writes it there.
    files: ['main/desktop/preload.cts'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Control characters in a link are what this file refuses, so its pattern names them.
    files: ['main/desktop/external-links.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  {
    // The accent class lists combining marks on their own, on purpose (nothing to combine with); the
    // migrations that fold text keep a copy of it.
    files: ['shared/text-fold.ts', 'main/core/store/migrations/004-stable-identity-folded-text.ts', 'main/central/store/migrations/002-sync-identity.ts'],
    rules: { 'no-misleading-character-class': 'off' },
  },
  {
    // Playwright reads a fixture's first parameter as a destructuring pattern, even an empty one.
    files: ['test/e2e/**'],
    rules: { 'no-empty-pattern': 'off' },
  },
  {
    files: ['shared/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...banGlobals(DOM_GLOBALS, cite('shared/ runs in every zone: no DOM')),
        ...banGlobals(NODE_GLOBALS, cite('shared/ runs in every zone: no node')),
      ],
    },
  },
  {
    files: ['renderer/src/**'],
    rules: {
      'no-restricted-globals': [
        'error',
        ...banGlobals(NODE_GLOBALS, cite('the renderer runs sandboxed: no node')),
        ...banGlobals(['confirm', 'alert', 'prompt'], 'ask with useConfirm (renderer/src/ui/Confirm.tsx): buttons that say what they do, focus kept'),
      ],
      'no-restricted-properties': [
        'error',
        ...['confirm', 'alert', 'prompt'].map((property) => ({ object: 'window', property, message: 'ask with useConfirm (renderer/src/ui/Confirm.tsx): buttons that say what they do, focus kept' })),
      ],
    },
  },
);
