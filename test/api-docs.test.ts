import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_DOC, DECLARED, REGENERATE, withGeneratedParts, type Declarations } from '../main/build/api-docs.js';
import { API } from '../shared/api/operations.js';
import { ERRORS } from '../shared/errors.js';

/**
 * docs/api.md's tables of operations and errors are written from shared/api/operations.ts and
 * shared/errors.ts (main/build/api-docs.ts): a declaration changed without rewriting them fails
 * here, with the command that rewrites them.
 */
const page = readFileSync(API_DOC, 'utf8');

describe('docs/api.md', () => {
  it('holds the tables its declarations generate', () => {
    expect(page, `docs/api.md differs from what shared/api/operations.ts and shared/errors.ts generate: run ${REGENERATE}`).toBe(withGeneratedParts(page));
  });

  it('follows a changed declaration: a summary, who may call, a reply, an error', () => {
    const changed: Declarations = {
      operations: { ...DECLARED.operations, 'pois.get': { ...API['pois.get'], summary: 'One POI, changed', access: 'admin', reply: API['pois.near'].reply } },
      errors: { ...DECLARED.errors, NOT_FOUND: { ...ERRORS.NOT_FOUND, when: 'nothing there' } },
    };
    const written = withGeneratedParts(page, changed);
    expect(written).not.toBe(page);
    expect(written).toContain("| `pois.get`: One POI, changed | `GET /1/pois/get.json` (or `POST`) | `poi` | the client's administrator token | array of `Poi` |");
    expect(written).toContain('| 404 | `EXCEPTION_NOT_FOUND` | nothing there |');
    // The hand-written prose around the tables is kept as it is.
    expect(written.replace(/<!-- generated: [\s\S]*?<!-- end generated -->/g, '')).toBe(page.replace(/<!-- generated: [\s\S]*?<!-- end generated -->/g, ''));
  });

  it('refuses a page that leaves an operation or the catalog out or has a marker it does not know, and an error that says not when', () => {
    const withoutPois = page.replace('<!-- generated: api operations pois categories warnings -->', '<!-- generated: api operations pois -->');
    expect(() => withGeneratedParts(withoutPois)).toThrow(/categories\.list, .*warnings\.delete/);
    expect(() => withGeneratedParts(page.replace('<!-- generated: api errors -->', '<!-- generated: api faults -->'))).toThrow(/api faults/);
    expect(() => withGeneratedParts(page.replace(/<!-- generated: api errors -->[\s\S]*?<!-- end generated -->/, ''))).toThrow(/api errors/);
    expect(() => withGeneratedParts(`${page}\n<!-- generated: api errors -->\n`)).toThrow(/end generated/);
    const unexplained: Declarations = { ...DECLARED, errors: { ...DECLARED.errors, SILENT: { status: 400, description: 'EXCEPTION_SILENT' } } };
    expect(() => withGeneratedParts(page, unexplained)).toThrow(/EXCEPTION_SILENT/);
  });

  it("leaves other generators' parts alone", () => {
    const theirs = '\n<!-- generated: cli commands -->\nby hand\n<!-- end generated -->\n';
    expect(withGeneratedParts(`${page}${theirs}`)).toBe(`${withGeneratedParts(page)}${theirs}`);
  });
});
