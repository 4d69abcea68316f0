import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchorsOf } from './support/markdown-anchors.js';

/**
 * The README and the manuals point at each other by relative links and anchors: each must reach a
 * file of the repository and, with `#anchor`, a heading of it (as GitHub names headings). A page
 * moved or a heading renamed fails here, not in a reader's browser.
 */
const root = join(import.meta.dirname, '..');
const pages = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && !f.startsWith('node_modules/') && !f.includes('/node_modules/') && existsSync(join(root, f)));

/** `[text](target)` links, but not images' remote sources nor code spans' contents. */
function linksOf(markdown: string): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  let fenced = false;
  markdown.split('\n').forEach((text, i) => {
    if (/^\s*```/.test(text)) fenced = !fenced;
    if (fenced) return;
    const outsideCode = text.replace(/`[^`]*`/g, '');
    for (const m of outsideCode.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) found.push({ line: i + 1, target: m[1]! });
  });
  return found;
}

describe('links between the README and the docs', () => {
  it('finds the pages to check', () => {
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'CONTRIBUTING.md', 'docs/admin-guide.md', 'docs/api.md']));
  });

  it('each relative link reaches a file, and each anchor a heading of it', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const { line, target } of linksOf(readFileSync(join(root, page), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? join(root, page) : normalize(join(root, dirname(page), decodeURIComponent(path)));
        const where = `${page}:${line} → ${target}`;
        if (!file.startsWith(root) || !existsSync(file)) broken.push(`${where}: no such file`);
        else if (anchor !== undefined && statSync(file).isFile() && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${where}: no such heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('keeps the README the front door: at most 12 KB', () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThanOrEqual(12 * 1024);
  });
});
