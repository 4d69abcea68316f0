import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { inputSchema } from '../../shared/api/openapi.js';
import { ACCESS, API, type ApiOperation } from '../../shared/api/operations.js';
import { NAMED_REPLIES } from '../../shared/api/replies.js';
import { ERRORS, type ErrorDeclaration } from '../../shared/errors.js';

/**
 * The tables of docs/api.md that restate a declaration (the `/1/` operations of
 * shared/api/operations.ts, the error catalog of shared/errors.ts) are written from it, between
 * markers, so that they cannot drift from what the listener does:
 *
 *   <!-- generated: api operations users -->   the operations whose names start `users.`
 *   <!-- generated: api errors -->             the error catalog
 *   <!-- end generated -->
 *
 * Everything outside the markers is prose written by hand. Markers whose name does not start
 * with `api ` belong to other generators and are left alone. test/api-docs.test.ts fails when
 * the page differs from what this writes.
 */

const root = join(import.meta.dirname, '..', '..');
export const API_DOC = join(root, 'docs', 'api.md');
/** What rewrites the page: named by the test that finds it stale. */
export const REGENERATE = 'npm run docs';

/** What the tables are written from: the real declarations, or others in a test. */
export interface Declarations {
  operations: Readonly<Record<string, ApiOperation>>;
  errors: Readonly<Record<string, ErrorDeclaration>>;
}

export const DECLARED: Declarations = { operations: API, errors: ERRORS };

/** A part and its end, with no other part's start between them (an unclosed one must not swallow the next). */
const MARKER = /<!-- generated: (api [^>]*?) -->\n(?:(?!<!-- generated:)[\s\S])*?<!-- end generated -->/g;
const OPENING = /<!-- generated: api [^>]*?-->/g;

const code = (text: string): string => `\`${text}\``;
/** A table cell holds one line, and a `|` would end it. */
const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
const row = (cells: readonly string[]): string => `| ${cells.map(cell).join(' | ')} |`;
const table = (head: readonly string[], rows: readonly (readonly string[])[]): string[] => [row(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(row)];

const replyNames = new Map<z.core.$ZodType, string>(Object.entries(NAMED_REPLIES).map(([name, schema]): [z.core.$ZodType, string] => [schema, name]));

/** A reply by the name of its schema in the OpenAPI document's components, as /1/reference shows it. */
function replyOf(operation: ApiOperation): string {
  const named = (schema: z.core.$ZodType): string => {
    const name = replyNames.get(schema);
    if (name === undefined) throw new Error(`${operation.path}: its reply is no NAMED_REPLIES entry (shared/api/replies.ts), nor an array of one`);
    return code(name);
  };
  const shape = operation.reply instanceof z.ZodArray ? `array of ${named(operation.reply.element)}` : named(operation.reply);
  const headers = Object.keys(operation.headers ?? {}).map((header) => `header ${code(header)}`);
  return [shape, ...headers].join('; ');
}

/** The verbs and path: the first verb is the one old clients use, the others are accepted too. */
function requestOf(operation: ApiOperation): string {
  const [first, ...others] = operation.verbs;
  const request = code(`${first ?? ''} /1/${operation.path}.json`);
  return others.length === 0 ? request : `${request} (or ${others.map(code).join(', ')})`;
}

/** Path parameters, then the required ones, then the optional ones with their defaults. */
function parametersOf(operation: ApiOperation): string {
  const { properties = {}, required = [] } = inputSchema(operation.input);
  const inPath = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
  const described = (name: string): string => {
    const description = properties[name]?.['description'];
    return typeof description === 'string' ? `${code(name)} in the path (${description})` : `${code(name)} in the path`;
  };
  const rest = Object.keys(properties).filter((name) => !inPath.includes(name));
  const withDefault = (name: string): string => {
    const fallback = properties[name]?.['default'];
    return fallback === undefined ? code(name) : `${code(name)} (default ${JSON.stringify(fallback)})`;
  };
  const needed = [...inPath.map(described), ...rest.filter((name) => required.includes(name)).map(code)];
  const optional = rest.filter((name) => !required.includes(name)).map(withDefault);
  const parts = [...(needed.length > 0 ? [needed.join(', ')] : []), ...(optional.length > 0 ? [`optional: ${optional.join(', ')}`] : [])];
  return parts.length === 0 ? 'none' : parts.join('; ');
}

function operationsTable(operations: readonly (readonly [string, ApiOperation])[]): string[] {
  return table(
    ['Operation', 'Request', 'Parameters', 'Who may call', 'Reply'],
    operations.map(([name, operation]) => [
      `${code(name)}: ${operation.summary}`,
      requestOf(operation),
      parametersOf(operation),
      ACCESS[operation.access],
      replyOf(operation),
    ]),
  );
}

/** By status, and in the catalog's order within one. */
function errorsTable(declared: Declarations): string[] {
  const entries = Object.values(declared.errors).toSorted((a, b) => a.status - b.status);
  return table(
    ['code', 'description', 'When'],
    entries.map((e) => {
      const when = [e.when, e.console].filter((text) => text !== undefined);
      if (when.length === 0) throw new Error(`${e.description} says neither \`when\` the API answers it nor when the \`console\` does`);
      return [String(e.status), code(e.description), when.join('; ')];
    }),
  );
}

/**
 * The page with each generated part written anew from the declarations. Throws when a marker is
 * unknown or unclosed, or when an operation is in no table or in two, or the catalog is missing:
 * a page that leaves part of the API out is as wrong as a stale one.
 */
export function withGeneratedParts(markdown: string, declared: Declarations = DECLARED): string {
  const opened = markdown.match(OPENING)?.length ?? 0;
  const placed = new Map<string, number>();
  let catalogs = 0;
  let closed = 0;
  const written = markdown.replace(MARKER, (_whole, kind: string) => {
    closed += 1;
    const [what = '', ...prefixes] = kind.split(' ').slice(1);
    let body: string[];
    let from: string;
    if (what === 'operations' && prefixes.length > 0) {
      const operations = Object.entries(declared.operations).filter(([name]) => prefixes.includes(name.split('.')[0] ?? ''));
      if (operations.length === 0) throw new Error(`<!-- generated: ${kind} -->: no operation's name starts with ${prefixes.map((p) => `${p}.`).join(' or ')}`);
      for (const [name] of operations) placed.set(name, (placed.get(name) ?? 0) + 1);
      body = operationsTable(operations);
      from = 'shared/api/operations.ts';
    } else if (what === 'errors' && prefixes.length === 0) {
      catalogs += 1;
      body = errorsTable(declared);
      from = 'shared/errors.ts';
    } else {
      throw new Error(`<!-- generated: ${kind} -->: this generator writes "api operations <prefix>..." and "api errors"`);
    }
    return [`<!-- generated: ${kind} -->`, `<!-- Written from ${from} by ${REGENERATE}: change it there, not here. -->`, '', ...body, '', '<!-- end generated -->'].join('\n');
  });
  if (closed !== opened) throw new Error(`${opened - closed} "<!-- generated: api ... -->" without its "<!-- end generated -->"`);
  const misplaced = Object.keys(declared.operations).filter((name) => placed.get(name) !== 1);
  if (misplaced.length > 0) throw new Error(`each operation belongs in one operations table; not so: ${misplaced.join(', ')}`);
  if (catalogs !== 1) throw new Error(`the page needs one "<!-- generated: api errors -->", not ${catalogs}`);
  return written;
}

/** Rewrites docs/api.md's generated parts (`npm run docs`, main/build/docs.ts); says whether it changed. */
export function writeApiDocs(): boolean {
  const before = readFileSync(API_DOC, 'utf8');
  const after = withGeneratedParts(before);
  if (after !== before) writeFileSync(API_DOC, after);
  return after !== before;
}
