import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI_PAGE, GENERATED_END, GENERATED_START, withCliReference } from '../main/build/docs.js';
import { COMMANDS, FLAGS, HELP, usageOf } from '../main/cli/commands.js';

/**
 * docs/cli.md's command reference is generated from the command table (main/cli/commands.ts),
 * which also gives parseArgs its flags and --help its text: a page edited by hand, or a table
 * changed without `npm run docs`, fails here with the command that mends it.
 */
const root = join(import.meta.dirname, '..');
const page = readFileSync(join(root, CLI_PAGE), 'utf8');

describe('the generated pages', () => {
  it(`${CLI_PAGE} holds the reference the command table generates`, () => {
    expect(page, `${CLI_PAGE} is stale, run \`npm run docs\`: its generated part is not what main/cli/commands.ts makes`).toBe(withCliReference(page));
  });

  it('keeps the hand-written parts around the generated one', () => {
    const [before = '', after = ''] = page.split(GENERATED_START);
    expect(before).toContain('# Command line');
    expect(after.split(GENERATED_END)[1]).toContain('--host 0.0.0.0');
  });

  it('refuses a page without its markers, rather than appending to it', () => {
    expect(() => withCliReference('# Command line\n')).toThrow(GENERATED_START);
  });
});

describe('the command table', () => {
  it.each(COMMANDS.map((c) => [usageOf(c), c] as const))('%s: its usage names exactly the flags it takes', (_usage, c) => {
    const named = [...new Set([...c.args.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]))];
    expect(named.sort(), 'the flags its usage line names, then its list of flags').toEqual([...c.flags].sort());
  });

  it('has every flag taken by some command (--help by all)', () => {
    const taken = new Set<string>(COMMANDS.flatMap((c) => c.flags));
    expect(Object.keys(FLAGS).filter((f) => !taken.has(f))).toEqual(['help']);
  });

  it('gives each command one line of help, and --help lists them all', () => {
    for (const c of COMMANDS) {
      expect(c.summary, c.command).not.toContain('\n');
      expect(HELP).toContain(`  ${usageOf(c)}\n      ${c.summary}\n`);
    }
    expect(new Set(COMMANDS.map(usageOf)).size).toBe(COMMANDS.length);
  });
});
