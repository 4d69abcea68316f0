// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { builtinModules } from 'node:module';
import tseslint from 'typescript-eslint';

/**
 * The zones of docs/design.md#zones, enforced: each zone's files may not import what the zone
 * forbids (statically, or with `import()`). Arrows only point down: desktop, http and cli ->
 * core -> shared; renderer -> shared; main/app composes a core with its transports.
 *
 * Relative paths are matched by the zone folder they climb into (`../http/x.js`,
 * `../../main/http/x`): the zone folder names are kept unique inside each zone for that reason.
 */

/** @typedef {{ regex: string, message: string }} Ban */

/**
 * Relative paths into other zones: folders (`../http/x.js`, `../../main/http/x`, `./http/x.js`
 * from main/) and top-level files (`../cli.js`).
 * @param {string[]} dirs @param {string[]} files @param {string} message @returns {Ban}
 */
const into = (dirs, files, message) => {
  const targets = [`(${dirs.join('|')})(/|$)`, ...(files.length ? [`(${files.join('|')})\\.js$`] : [])];
  return { regex: `^(\\./|(\\.\\./)+)(main/)?(${targets.join('|')})`, message };
};

const NODE = 'node builtins run in the main process only';
const nodeBuiltins = /** @type {Ban[]} */ ([
  { regex: '^node:', message: NODE },
  { regex: String.raw`^(${builtinModules.filter((m) => !m.startsWith('_')).join('|')})(/|$)`, message: NODE },
]);
const electron = { regex: '^electron(/|$)', message: 'only main/desktop/ touches electron' };
const fastify = { regex: '^(@fastify/|(fastify|busboy)(/|$))', message: 'the HTTP framework belongs to main/http/' };
const nodeOnlyPackages = { regex: '^(@fastify/|@node-rs/|(better-sqlite3|fastify|busboy|tsx|esbuild)(/|$))', message: 'this package needs node: main process only' };
const renderer = into(['renderer'], [], 'the renderer is reached only through the contract in shared/');
const postgres = { regex: '^pg(/|$)', message: 'only main/central talks to PostgreSQL: the desktop syncs with it over HTTP' };
const entryPoints = into(['cli'], ['cli', 'start'], 'entry points and the CLI are at the top: nothing imports them');

/** @type {Record<string, { files: string[], bans: Ban[] }>} */
const ZONES = {
  shared: {
    files: ['shared/**'],
    bans: [
      // Node builtins included: shared/ runs in every zone.
      // @noble/hashes is plain JavaScript (no node, no DOM): the password fingerprints both sides of sync compute (shared/sync-entities.ts).
      { regex: String.raw`^(?!\.|zod(/|$)|@noble/hashes(/|$))`, message: 'shared/ runs in every zone (renderer too): it imports zod, @noble/hashes and itself only' },
      into(['main', 'renderer'], [], 'shared/ imports nothing from main/ or renderer/'),
    ],
  },
  core: {
    files: ['main/core/**'],
    bans: [electron, fastify, postgres, into(['http', 'desktop', 'app', 'central'], [], 'the core knows no transport: nothing from main/http, main/desktop, main/app or main/central'), entryPoints, renderer],
  },
  'sync-client': {
    files: ['main/sync-client/**'],
    bans: [electron, fastify, postgres, into(['http', 'desktop', 'app', 'central'], [], 'the sync client talks to the central over HTTP and to the core: nothing else'), entryPoints, renderer],
  },
  central: {
    files: ['main/central/**'],
    bans: [
      electron,
      { regex: '^better-sqlite3(/|$)', message: "the central's store is PostgreSQL: SQLite is the desktop's" },
      into(['core', 'http', 'desktop', 'app', 'sync-client'], [], 'the central shares rules with the desktop through shared/ only'),
      entryPoints,
      renderer,
    ],
  },
  http: {
    files: ['main/http/**'],
    bans: [electron, postgres, into(['desktop', 'app', 'central'], [], 'the listener knows no shell: nothing from main/desktop or main/app'), entryPoints, renderer],
  },
  app: {
    files: ['main/app/**'],
    bans: [electron, postgres, into(['desktop'], [], 'main/app composes core and http for every shell: nothing from main/desktop'), entryPoints, renderer],
  },
  desktop: {
    files: ['main/desktop/**'],
    bans: [postgres, into(['http', 'central'], [], 'the desktop reaches the listener through main/app: the HTTP framework stays out of its bundle'), entryPoints, renderer],
  },
  entries: {
    files: ['main/cli/**', 'main/*.ts', 'main/build/**', 'renderer/vite.config.ts'],
    bans: [electron, into(['desktop'], [], 'main/desktop runs inside Electron only: start it as a bundle'), renderer],
  },
  renderer: {
    files: ['renderer/src/**'],
    bans: [...nodeBuiltins, electron, nodeOnlyPackages, into(['main'], [], 'the renderer talks to main only through the contract in shared/')],
  },
};

/** A regex for esquery (no-restricted-syntax), whose regex literal may hold no slash at all. @param {string} source */
const esquery = (source) => source.replaceAll('/', String.raw`\x2F`);

/** The same bans for `import()`, which no-restricted-imports does not see. @param {Ban[]} bans */
const dynamicImportBans = (bans) =>
  bans.map((ban) => ({ selector: `ImportExpression[source.value=/${esquery(ban.regex)}/]`, message: ban.message }));

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
  ...Object.values(ZONES).map(({ files, bans }) => ({
    files,
    rules: {
      // The TypeScript variant also sees `import x = require(...)`.
      '@typescript-eslint/no-restricted-imports': ['error', { patterns: bans }],
      'no-restricted-syntax': ['error', ...dynamicImportBans(bans)],
    },
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
    // The accent class lists combining marks on their own, on purpose (nothing to combine with).
    files: ['shared/text-fold.ts'],
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
        ...banGlobals(DOM_GLOBALS, 'shared/ runs in every zone: no DOM'),
        ...banGlobals(NODE_GLOBALS, 'shared/ runs in every zone: no node'),
      ],
    },
  },
  {
    files: ['renderer/src/**'],
    rules: { 'no-restricted-globals': ['error', ...banGlobals(NODE_GLOBALS, 'the renderer runs sandboxed: no node')] },
  },
);
