import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A comment, a lint message or a test may cite only what a reader of this repository can open:
 * its own files, and headings that exist in them. Documents kept elsewhere (the team's spec and
 * design notes, the issue tracker) are missing from a checkout, move on their own, and say what
 * was asked rather than what the code does: what the code follows from them is in docs/
 * (docs/api-spec.md, docs/design.md#zones).
 */
const root = join(import.meta.dirname, '..');

/**
 * Files left out, each with the reason. One that has nothing left to report fails the run, so
 * that it is not left out for good.
 */
const EXEMPT: Readonly<Record<string, string>> = {
  'test/docs-citations.test.ts': "this checker's samples are citations of every kind, on purpose",
};

interface Outside {
  pattern: RegExp;
  what: string;
}

/** Citations of documents outside the repository, whatever the file they are in. */
const OUTSIDE: readonly Outside[] = [
  { pattern: /\bspec(?:'s)?\s+(?:§\s*|sections?\s+|rule\s+)?\d+(?:\.\d+)*/giu, what: 'a section of the outside spec' },
  { pattern: /§\s*\d/gu, what: 'a section number of an outside document' },
  { pattern: /\bapi-extensions\b/giu, what: 'the outside list of extensions' },
  { pattern: /\bpoi-membership-api\b/giu, what: 'the outside spec' },
  { pattern: /\b(?:issues?|tickets?|PRs?|pull requests?)\s*#\s*\d+|\b(?:issues?|tickets?)\s+\d+/giu, what: 'an issue of the tracker, by number' },
  { pattern: /(?<![\w.:/-])\/work\//gu, what: "an absolute path of one machine's checkout" },
];

/** A path to a design.md: fine only where it resolves to docs/design.md. */
const DESIGN_PATH = /(?<![\w./-])(?:[\w.-]+\/)*design\.md\b/giu;
/** A relative path that climbs into a `shared` folder, and what it names in it. */
const CLIMB_TO_SHARED = /(?<![\w./-])((?:\.\.\/)+)shared((?:\/[\w.-]+)*)/gu;
/** `docs/<name>.md`, optionally `#anchor`, from the repository's root or relative (`../docs/`). */
const DOCS_PATH = /(?<![\w./-])((?:\.{1,2}\/)*)docs\/([\w.-]+\.md)(?:#([\p{L}\p{M}\p{N}_-]+))?/gu;
/** A Markdown link's target. */
const MD_LINK = /\]\(([^)\s]+)\)/gu;

interface Problem {
  at: string;
  what: string;
}

/** The repository's own files, as the checker sees them. */
interface Tree {
  has(path: string): boolean;
  hasFolder(path: string): boolean;
  read(path: string): string;
}

/** GitHub's anchor of a heading: lower case, punctuation removed, each space a hyphen. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/!?\[([^\]]*)\]\([^)]*\)/gu, '$1')
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /gu, '-');
}

/** The anchors of a Markdown text's headings (fenced code left out); a repeated one gets `-1`, `-2`... as on GitHub. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const opening = /^\s{0,3}(`{3,}|~{3,})/u.exec(line)?.[1];
    if (opening !== undefined) {
      const mark = opening.charAt(0);
      if (fence === null) fence = mark;
      else if (mark === fence) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$/u.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const times = seen.get(base) ?? 0;
    seen.set(base, times + 1);
    anchors.add(times === 0 ? base : `${base}-${times}`);
  }
  return anchors;
}

/** Why `target` (repository-relative, normalised) with `anchor` cannot be followed; undefined when it can. */
function brokenTarget(tree: Tree, target: string, anchor: string | undefined): string | undefined {
  if (target.startsWith('../')) return `${target} is outside the repository`;
  if (!tree.has(target)) return `${target} does not exist`;
  if (anchor !== undefined && !anchorsOf(tree.read(target)).has(anchor)) return `${target} has no heading #${anchor}`;
  return undefined;
}

/**
 * Whether `rest` (`/errors.js`, an import's name of `shared/errors.ts`) is a file or folder of the
 * repository's shared/. Judged by what it names rather than by how far it climbs: sample code
 * placed at another path (test/zones.test.ts) climbs further than its own file could.
 */
function inOurShared(tree: Tree, rest: string): boolean {
  const path = `shared${rest}`;
  const asFile = [path, path.replace(/\.js$/u, '.ts'), path.replace(/\.js$/u, '.tsx'), `${path}.ts`, `${path}.tsx`];
  return asFile.some((p) => tree.has(p)) || tree.hasFolder(path);
}

/** Every citation of `file` (whose text is `text`) that a reader of the repository cannot follow. */
function problemsOf(tree: Tree, file: string, text: string): Problem[] {
  const dir = posix.dirname(file);
  const problems: Problem[] = [];
  text.split('\n').forEach((line, i) => {
    const at = `${file}:${i + 1}`;
    const report = (what: string, match: string): void => {
      if (!problems.some((p) => p.at === at && p.what.startsWith(`${what}:`))) problems.push({ at, what: `${what}: “${match.trim()}”` });
    };
    for (const { pattern, what } of OUTSIDE) {
      for (const m of line.matchAll(pattern)) report(what, m[0]);
    }
    for (const m of line.matchAll(DESIGN_PATH)) {
      // A bare name is read from the folder of a Markdown file, and is ambiguous anywhere else.
      const base = m[0].startsWith('.') || (!m[0].includes('/') && file.endsWith('.md')) ? dir : '.';
      if (posix.join(base, m[0]) !== 'docs/design.md') report('design notes outside the repository (ours are docs/design.md)', m[0]);
    }
    for (const m of line.matchAll(CLIMB_TO_SHARED)) {
      const rest = m[2] ?? '';
      const outside = rest === '' ? posix.join(dir, m[1] ?? '', 'shared').startsWith('../') : !inOurShared(tree, rest);
      if (outside) report('a path out of the repository', m[0]);
    }
    for (const m of line.matchAll(DOCS_PATH)) {
      const prefix = m[1] ?? '';
      const broken = brokenTarget(tree, posix.join(prefix === '' ? '.' : dir, prefix, 'docs', m[2] ?? ''), m[3]);
      if (broken !== undefined) report(broken, m[0]);
    }
    if (!file.endsWith('.md')) return;
    for (const m of line.matchAll(MD_LINK)) {
      const link = m[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/iu.test(link)) continue;
      const [path = '', anchor] = link.split('#', 2);
      if (path !== '' && !path.endsWith('.md')) continue;
      const broken = brokenTarget(tree, path === '' ? file : posix.join(dir, path), anchor);
      if (broken !== undefined) report(broken, m[0]);
    }
  });
  return problems;
}

/** The tracked files as the working tree has them; a binary file (a NUL byte) reads as empty. */
function workingTree(): { files: string[]; tree: Tree } {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(root, f)));
  const tracked = new Set(files);
  const texts = new Map<string, string>();
  const read = (path: string): string => {
    let text = texts.get(path);
    if (text === undefined) {
      const bytes = readFileSync(join(root, path));
      text = bytes.subarray(0, 8000).includes(0) ? '' : bytes.toString('utf8');
      texts.set(path, text);
    }
    return text;
  };
  const folders = new Set(files.flatMap((f) => f.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  return { files, tree: { has: (path) => tracked.has(path), hasFolder: (path) => folders.has(path), read } };
}

const SAMPLE_DOCS: Readonly<Record<string, string>> = {
  'docs/a.md': '# Title\n\n## Tokens and keys\n\n## The `user` reply (2.4)\n\n```\n# not a heading\n```\n\n## Tokens and keys\n',
  'docs/b.md': 'See [a](a.md#tokens-and-keys) and [here](#b).\n\n## B\n\nAlso [gone](a.md#nope).\n',
  'docs/design.md': '## Zones\n',
  'shared/errors.ts': '',
};
const sampleTree: Tree = {
  has: (path) => Object.hasOwn(SAMPLE_DOCS, path),
  hasFolder: (path) => Object.keys(SAMPLE_DOCS).some((f) => f.startsWith(`${path}/`)),
  read: (path) => SAMPLE_DOCS[path] ?? '',
};
const problems = (file: string, text: string): string[] => problemsOf(sampleTree, file, text).map((p) => p.what);

describe('citations: the checker', () => {
  it('makes GitHub anchors of headings, repeats numbered, fenced code left out', () => {
    expect(slug('The `user` reply (2.4)')).toBe('the-user-reply-24');
    expect(slug('Replies old clients parse')).toBe('replies-old-clients-parse');
    expect([...anchorsOf(SAMPLE_DOCS['docs/a.md'] ?? '')]).toEqual(['title', 'tokens-and-keys', 'the-user-reply-24', 'tokens-and-keys-1']);
  });

  it.each([
    'the rules of spec 4.1/4.2',
    'Spec 2.2. The names',
    'spec sections 4 and',
    'see § 4.3',
    '(api-extensions.md)',
    'spec/poi-membership-api.md',
    'the zones of shared/design.md',
    'the zones of design.md',
    'before issue 24',
    'issues 13 and 24',
    'see issue #25',
    '/work/shared/spec',
    "'../shared/spec'",
  ])('finds an outside citation in %s', (line) => {
    expect(problems('main/x.ts', line)).toHaveLength(1);
  });

  it.each([
    'for (const spec of specs)',
    "a job of the spec's kind",
    "import { z } from '../../shared/errors.js';",
    'tokens.issue(clientId)',
    "'&#39;'",
    'see docs/design.md#zones',
    'see docs/a.md#tokens-and-keys-1',
  ])('lets through %s', (line) => {
    expect(problems('main/core/x.ts', line)).toEqual([]);
  });

  it('reads a relative path from where its file is', () => {
    expect(problems('test/x.ts', "import { z } from '../shared/errors.js';")).toEqual([]);
    expect(problems('test/x.ts', "['main/core/pois/x.ts', \"import { z } from '../../../shared/errors.js';\"]")).toEqual([]);
    expect(problems('test/x.ts', 'see ../docs/a.md')).toEqual([]);
    expect(problems('eslint.config.js', '// ../shared/design.md')).toHaveLength(2);
    expect(problems('docs/c.md', '[design](design.md), [the zones](design.md#zones)')).toEqual([]);
  });

  it('finds a cited file or heading that does not exist', () => {
    expect(problems('main/x.ts', 'see docs/nope.md')).toEqual(['docs/nope.md does not exist: “docs/nope.md”']);
    expect(problems('main/x.ts', 'docs/a.md#tokens')).toEqual(['docs/a.md has no heading #tokens: “docs/a.md#tokens”']);
    expect(problems('docs/c.md', '[x](missing.md)')).toEqual(['docs/missing.md does not exist: “](missing.md)”']);
    expect(problemsOf(sampleTree, 'docs/b.md', SAMPLE_DOCS['docs/b.md'] ?? '')).toEqual([
      { at: 'docs/b.md:5', what: 'docs/a.md has no heading #nope: “](a.md#nope)”' },
    ]);
  });
});

describe('citations: the repository', () => {
  const { files, tree } = workingTree();
  const found = new Map(files.map((file) => [file, problemsOf(tree, file, tree.read(file))]));

  it('cites only its own files, and headings that exist in them', () => {
    const listed = [...found].filter(([file]) => !Object.hasOwn(EXEMPT, file)).flatMap(([, p]) => p.map((q) => `${q.at}: ${q.what}`));
    expect(listed, `${listed.length} citations a reader of the repository cannot follow:\n${listed.join('\n')}`).toEqual([]);
  });

  it.each(Object.keys(EXEMPT))('still has a reason to leave out %s', (file) => {
    expect(found.get(file) ?? [], `${file} has nothing to report any more: remove it from EXEMPT`).not.toEqual([]);
  });
});
