// @ts-check
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * The rule behind the zones of docs/design.md#zones. The zone table itself is declared once, in
 * eslint.config.js; this rule only applies one zone's bans to one file.
 *
 * A relative import is matched by the file it resolves to, not by how it is spelled:
 * `../sync-client/x.js`, `./../sync-client/x.js` and `../../main/sync-client/x.js` from
 * main/core/ all land in main/sync-client/. Matching by spelling could not tell the core's own
 * main/core/sync/ from the sync client while both folders were named `sync`, and missed any
 * spelling the pattern did not foresee (`./../http/x.js`). A bare specifier names a package, and
 * is matched by a pattern on its name.
 */

/**
 * A package ban: `packages` is a regular expression tested against a bare specifier
 * (`electron`, `node:fs`, `@fastify/static`).
 * @typedef {{ packages: string, message: string }} PackageBan
 */
/**
 * A path ban: `paths` are folders or modules, from the repository's root (`main/http`,
 * `main/cli.ts`). A folder bans everything under it; a module is matched whatever script
 * extension the import spells it with (TypeScript's `.js` for a `.ts` file, or none).
 * @typedef {{ paths: string[], message: string }} PathBan
 */
/**
 * A containment ban: a runtime value may come only from `valuesOnlyFrom`, folders from the
 * repository's root; a package is outside all of them. Types are free: `import type`,
 * `export type … from` and `import('x').T` leave nothing at run time. `import { type X }` is not
 * type-only under `verbatimModuleSyntax` (tsconfig.json): it still loads the module.
 * @typedef {{ valuesOnlyFrom: string[], message: string }} ContainBan
 */
/** @typedef {PackageBan | PathBan | ContainBan} Ban */
/** @typedef {{ root: string, bans: Ban[] }} ZoneOptions */

/** What a specifier may end with when it names a script: dropped before comparing paths. */
const SCRIPT_EXTENSION = /\.(?:[cm]?[jt]s|[jt]sx)$/u;

/** A path from the repository's root, with `/` on every platform so that it compares with the table's. @param {string} root @param {string} path */
const fromRoot = (root, path) => relative(root, path).split(sep).join('/');

/** @param {string} path */
const moduleOf = (path) => path.replace(SCRIPT_EXTENSION, '');

/**
 * A property of a node read without trusting its type: TypeScript's own nodes
 * (`import x = require()`, `import('x').T`) are not ESTree, so ESLint's types do not describe them.
 * @param {unknown} value @param {string} key @returns {unknown}
 */
const field = (value, key) => (typeof value === 'object' && value !== null ? Object.getOwnPropertyDescriptor(value, key)?.value : undefined);

/**
 * The specifier a node spells out: a string literal, or a template without substitutions
 * (`` import(`../http/x.js`) ``). Anything computed is out of a linter's reach.
 * @param {unknown} node @returns {string | undefined}
 */
function specifierIn(node) {
  const type = field(node, 'type');
  if (type === 'Literal') {
    const value = field(node, 'value');
    return typeof value === 'string' ? value : undefined;
  }
  if (type === 'TemplateLiteral') {
    const expressions = field(node, 'expressions');
    const quasis = field(node, 'quasis');
    if (!Array.isArray(expressions) || expressions.length > 0 || !Array.isArray(quasis)) return undefined;
    const cooked = field(field(quasis[0], 'value'), 'cooked');
    return typeof cooked === 'string' ? cooked : undefined;
  }
  return undefined;
}

const BAN_SCHEMA = {
  oneOf: [
    {
      type: 'object',
      properties: { packages: { type: 'string' }, message: { type: 'string' } },
      required: ['packages', 'message'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { paths: { type: 'array', items: { type: 'string' }, minItems: 1 }, message: { type: 'string' } },
      required: ['paths', 'message'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { valuesOnlyFrom: { type: 'array', items: { type: 'string' }, minItems: 1 }, message: { type: 'string' } },
      required: ['valuesOnlyFrom', 'message'],
      additionalProperties: false,
    },
  ],
};

/** @type {import('eslint').Rule.RuleModule} */
export const imports = {
  meta: {
    type: 'problem',
    docs: { description: 'Refuse the imports a zone of docs/design.md#zones may not have, matching relative ones by the file they resolve to' },
    schema: [
      {
        type: 'object',
        properties: { root: { type: 'string' }, bans: { type: 'array', items: BAN_SCHEMA } },
        required: ['root', 'bans'],
        additionalProperties: false,
      },
    ],
    messages: {
      package: "'{{specifier}}': {{message}}",
      path: "'{{specifier}}' is {{resolved}}: {{message}}",
    },
  },
  create(context) {
    // The schema above has checked the shape.
    const { root, bans } = /** @type {ZoneOptions} */ (context.options[0]);
    const packageBans = bans.flatMap((ban) => ('packages' in ban ? [{ pattern: new RegExp(ban.packages, 'u'), message: ban.message }] : []));
    const pathBans = bans.flatMap((ban) => ('paths' in ban ? [{ targets: ban.paths.map((path) => ({ under: `${path}/`, module: moduleOf(path) })), message: ban.message }] : []));
    const containBans = bans.flatMap((ban) => ('valuesOnlyFrom' in ban ? [{ folders: ban.valuesOnlyFrom.map((path) => `${path}/`), message: ban.message }] : []));
    // The file on disk: a block inside a Markdown file resolves from the Markdown file's folder.
    const folder = dirname(context.physicalFilename);

    /**
     * One report per import: the first ban it breaks, zone bans before containment.
     * @param {import('eslint').Rule.Node} node the node to report @param {string | undefined} specifier @param {boolean} typeOnly nothing of it is left at run time
     */
    function check(node, specifier, typeOnly) {
      if (specifier === undefined) return;
      if (!specifier.startsWith('.') && !isAbsolute(specifier)) {
        const ban = packageBans.find(({ pattern }) => pattern.test(specifier)) ?? (typeOnly ? undefined : containBans[0]);
        if (ban) context.report({ node, messageId: 'package', data: { specifier, message: ban.message } });
        return;
      }
      const resolved = fromRoot(root, resolve(folder, specifier));
      const module = moduleOf(resolved);
      const ban =
        pathBans.find(({ targets }) => targets.some((target) => resolved.startsWith(target.under) || module === target.module)) ??
        (typeOnly ? undefined : containBans.find(({ folders }) => !folders.some((under) => resolved.startsWith(under))));
      if (ban) context.report({ node, messageId: 'path', data: { specifier, resolved, message: ban.message } });
    }

    /** `import type …`, `export type … from`, `import type x = require()`. @param {unknown} node @param {string} key */
    const typeKind = (node, key) => field(node, key) === 'type';

    return {
      ImportDeclaration: (node) => check(node, specifierIn(node.source), typeKind(node, 'importKind')),
      ExportNamedDeclaration: (node) => check(node, specifierIn(node.source), typeKind(node, 'exportKind')),
      ExportAllDeclaration: (node) => check(node, specifierIn(node.source), typeKind(node, 'exportKind')),
      ImportExpression: (node) => check(node, specifierIn(node.source), false),
      // `import x = require('x')`: how a CommonJS file (the preload) imports in TypeScript.
      TSImportEqualsDeclaration: (/** @type {import('eslint').Rule.Node} */ node) =>
        check(node, specifierIn(field(field(node, 'moduleReference'), 'expression')), typeKind(node, 'importKind')),
      // `import('x').T` in a type: a type-only import spelled inline, banned like `import type` by zone bans.
      TSImportType: (/** @type {import('eslint').Rule.Node} */ node) => check(node, specifierIn(field(node, 'source')), true),
    };
  },
};

/** The local plugin eslint.config.js registers as `zones`. @type {import('eslint').ESLint.Plugin} */
export default { meta: { name: 'zones' }, rules: { imports } };
