import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS, flagList, flagUsage, usageOf } from '../cli/commands.js';
import { writeApiDocs } from './api-docs.js';

const root = join(import.meta.dirname, '..', '..');

/** The page whose command reference is generated, from the repository's root. */
export const CLI_PAGE = 'docs/cli.md';

/** What encloses the generated part; the rest of the page is written by hand. */
export const GENERATED_START = '<!-- generated from main/cli/commands.ts by `npm run docs`: edit the tables there, not here -->';
export const GENERATED_END = '<!-- end of the generated part -->';

/** A table cell's text: a `|` would end the cell, even inside a code span. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

/** The command reference: one row per command, then one per flag. */
function cliReference(): string {
  return [
    '| Command | What it does |',
    '|---|---|',
    ...COMMANDS.map((c) => `| \`${cell(usageOf(c))}\` | ${cell(c.description.join(' '))} |`),
    '',
    '| Flag | What it does |',
    '|---|---|',
    ...flagList().map(({ name, flag }) => `| \`${cell(flagUsage(name, flag))}\` | ${cell(flag.description)} |`),
  ].join('\n');
}

/** `page` with its generated part made anew; the markers must be there, once each. */
export function withCliReference(page: string): string {
  const start = page.indexOf(GENERATED_START);
  const end = page.indexOf(GENERATED_END);
  if (start < 0 || end < start || page.indexOf(GENERATED_START, start + 1) >= 0 || page.indexOf(GENERATED_END, end + 1) >= 0) {
    throw new Error(`${CLI_PAGE} must hold the markers ${GENERATED_START} and ${GENERATED_END}, once each and in that order`);
  }
  return `${page.slice(0, start + GENERATED_START.length)}\n${cliReference()}\n${page.slice(end)}`;
}

/** `npm run docs`: rewrites the generated part of docs/cli.md; says whether it changed. */
function writeDocs(): boolean {
  const file = join(root, CLI_PAGE);
  const page = readFileSync(file, 'utf8');
  const next = withCliReference(page);
  if (next !== page) writeFileSync(file, next);
  return next !== page;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  console.log(`${CLI_PAGE}: ${writeDocs() ? 'rewritten' : 'up to date'}`);
  console.log(`docs/api.md: ${writeApiDocs() ? 'rewritten' : 'up to date'}`);
}
