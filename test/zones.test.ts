import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The zone rules of shared/design.md, checked on every import of every source file:
 * arrows only point down (desktop/http/cli -> core -> shared; renderer -> shared).
 */
const root = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  const full = join(root, dir);
  try {
    statSync(full);
  } catch {
    return [];
  }
  return readdirSync(full, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|mts|cts)$/.test(f) && !f.includes('node_modules'))
    .map((f) => join(dir, f));
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2] ?? m[3])!);
}

function violations(dir: string, forbidden: (spec: string, file: string) => boolean): string[] {
  return sources(dir).flatMap((file) => importsOf(file).filter((s) => forbidden(s, file)).map((s) => `${file} imports ${s}`));
}

const resolvesInto = (file: string, spec: string, zone: string): boolean =>
  spec.startsWith('.') && relative(root, join(root, file, '..', spec)).startsWith(zone);

const NODE_BUILTIN = /^(node:|fs$|path$|os$|crypto$|http$|https$|net$|child_process$|url$|stream$|events$)/;

describe('zones', () => {
  it('finds the sources it checks (the scan itself works)', () => {
    expect(sources('main/core').length).toBeGreaterThan(5);
    expect(importsOf('main/core/service.ts')).toContain('./clients.js');
  });

  it('shared/ imports no node, electron, framework or DOM code, and nothing outside shared/', () => {
    expect(
      violations('shared', (s, f) =>
        NODE_BUILTIN.test(s) || /^(electron|better-sqlite3|fastify|react|react-dom|leaflet)/.test(s) || (s.startsWith('.') && !resolvesInto(f, s, 'shared')),
      ),
    ).toEqual([]);
    const code = (f: string) => readFileSync(join(root, f), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
    const dom = sources('shared').filter((f) => /\b(window|document|localStorage)\./.test(code(f)));
    expect(dom).toEqual([]);
  });

  it('main/core/ imports neither electron nor the HTTP framework, nor the layers above it', () => {
    expect(
      violations('main/core', (s, f) =>
        /^(electron|fastify|@fastify\/|busboy)/.test(s) ||
        resolvesInto(f, s, 'main/http') ||
        resolvesInto(f, s, 'main/desktop') ||
        resolvesInto(f, s, 'main/cli') ||
        resolvesInto(f, s, 'renderer'),
      ),
    ).toEqual([]);
  });

  it('only main/desktop/ touches electron', () => {
    const outside = ['shared', 'main', 'renderer', 'test'].flatMap((d) =>
      violations(d, (s, f) => /^electron(\/|$)/.test(s) && !f.startsWith('main/desktop/') && !f.startsWith('test/e2e/')),
    );
    expect(outside).toEqual([]);
  });

  it('main/http/ does not reach into electron or the renderer', () => {
    expect(violations('main/http', (s, f) => resolvesInto(f, s, 'main/desktop') || resolvesInto(f, s, 'renderer'))).toEqual([]);
  });

  it('renderer/ talks to the main process only through shared/', () => {
    expect(violations('renderer/src', (s, f) => resolvesInto(f, s, 'main') || NODE_BUILTIN.test(s) || s === 'better-sqlite3')).toEqual([]);
  });
});
