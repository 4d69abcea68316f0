import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { operations } from '../shared/contract.js';
import { acceptOf, CSV_FLAVOURS, EXPORT_FORMATS, extensionsOf, FILE_FORMATS, FORMAT_IDS, IMPORT_FORMATS, importFormatOf } from '../shared/file-formats.js';

/**
 * One declaration per file format (shared/file-formats.ts): every place that lists formats takes
 * them from it. Each place is asked about each format, and no source outside the declaration and
 * the formats' own modules names a format by hand, which is how a third format used to be read
 * as GeoJSON by a rule written three times. The HTTP routes are asked in
 * test/http/export-formats.test.ts, the CLI's usage in test/cli.test.ts.
 */
const root = join(import.meta.dirname, '..');
const CLIENT = '00000000-0000-4000-8000-000000000000';

// The page's module, loaded as the tests run: the renderer is type-checked in its own program (DOM, bundler resolution).
const PAGE_MODULE = '../renderer/src/pois/importPreview.ts';
const page = z
  .object({ formatOf: z.custom<(file: File) => string | undefined>((v) => typeof v === 'function'), IMPORT_ACCEPT: z.string() })
  .parse(await import(PAGE_MODULE));

describe('the file formats, declared once', () => {
  it('are taken by the desktop export operation, each with each CSV flavour, and nothing else is', () => {
    for (const format of EXPORT_FORMATS) {
      for (const csvFlavour of CSV_FLAVOURS) expect(operations['pois.exportDialog'].safeParse({ clientId: CLIENT, format, csvFlavour }).success, `${format} ${csvFlavour}`).toBe(true);
      expect(operations['pois.exportDialog'].parse({ clientId: CLIENT, format })).toMatchObject({ csvFlavour: 'spreadsheet' });
    }
    expect(operations['pois.exportDialog'].safeParse({ clientId: CLIENT, format: 'xlsx' }).success).toBe(false);
    expect(operations['pois.exportDialog'].safeParse({ clientId: CLIENT, format: EXPORT_FORMATS[0], csvFlavour: 'excel' }).success).toBe(false);
  });

  it('are told apart by every extension they claim, in any case, by the import rule the dialogs, the CLI and the page share', () => {
    for (const format of IMPORT_FORMATS) {
      for (const extension of FILE_FORMATS[format].extensions) {
        for (const name of [`pois.${extension}`, `My POIs.${extension.toUpperCase()}`, `/some/where/a.b.${extension}`]) {
          expect(importFormatOf(name), name).toBe(format);
          expect(page.formatOf(new File([], name)), name).toBe(format);
        }
      }
    }
    for (const name of ['pois.xlsx', 'pois', 'csv', 'pois.csv.gz', 'geojson']) {
      expect(importFormatOf(name), name).toBeUndefined();
      expect(page.formatOf(new File([], name)), name).toBeUndefined();
    }
  });

  it('give the page file input its accept attribute, and each extension belongs to one format', () => {
    expect(page.IMPORT_ACCEPT).toBe(acceptOf(IMPORT_FORMATS));
    for (const extension of extensionsOf(IMPORT_FORMATS)) expect(page.IMPORT_ACCEPT.split(',')).toContain(`.${extension}`);
    const all = extensionsOf(FORMAT_IDS);
    expect(new Set(all).size).toBe(all.length);
    expect(all.every((e) => e === e.toLowerCase() && !e.startsWith('.'))).toBe(true);
  });

  it('are named by hand nowhere else in main/, shared/ or renderer/src/', () => {
    const allowed = (file: string): boolean => file === 'shared/file-formats.ts' || file.startsWith('main/core/formats/');
    const sources = ['main', 'shared', join('renderer', 'src')].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|tsx|cts|mts)$/.test(f))
        .map((f) => join(root, dir, f)),
    );
    // An id or an extension in lower case (a MIME type too), or a rule on a file's name.
    const named = (text: string): boolean => new RegExp(`\\b(${extensionsOf(FORMAT_IDS).filter((e) => e !== 'json').join('|')})\\b|geo\\+json`).test(text);
    const found: string[] = [];
    for (const file of sources) {
      const path = relative(root, file).split('\\').join('/');
      if (allowed(path)) continue;
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
      const visit = (node: ts.Node): void => {
        const moduleName = ts.isStringLiteral(node) && (ts.isImportDeclaration(node.parent) || ts.isExportDeclaration(node.parent) || ts.isExternalModuleReference(node.parent) || (ts.isCallExpression(node.parent) && node.parent.expression.kind === ts.SyntaxKind.ImportKeyword));
        const literal = ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node) || ts.isJsxText(node);
        if ((literal && !moduleName && named(node.text)) || (ts.isRegularExpressionLiteral(node) && /csv|json/i.test(node.text))) {
          found.push(`${path}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${node.getText().slice(0, 80)}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    // Before: 28 places in main/cli.ts, main/cli/poi-commands.ts, main/desktop/poi-import.ts and
    // poi-export.ts, main/core/exports/poi-export.ts, main/core/imports/records.ts, shared/exports.ts,
    // renderer/src/pois/importPreview.ts and ImportPois.tsx.
    expect(found).toEqual([]);
  });
});
