import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { isOpName } from '../shared/contract.js';

/**
 * One declaration per operation in the admin UI: every console operation that writes is run by
 * exactly one hook (`useOperation` in a feature's mutations.ts), which alone says what it makes
 * stale, so two screens doing the same thing cannot disagree. Checked on the renderer's own
 * TypeScript program, with the type checker resolving what each call really calls (an alias or a
 * constant op name is seen through).
 */
const root = join(import.meta.dirname, '..');
const src = join(root, 'renderer', 'src');
const rel = (file: string): string => relative(root, file);

interface Use {
  file: string;
  op: string | undefined;
}

function scan(): { operations: Use[]; calls: Use[]; mutations: string[] } {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, 'renderer', 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('renderer/tsconfig.json unreadable');
  const program = ts.createProgram(config.fileNames, config.options);
  const checker = program.getTypeChecker();

  /** Where the function a call calls is declared, through imports under other names. */
  const declaredIn = (node: ts.Node): { file: string; name: string } | undefined => {
    let symbol = checker.getSymbolAtLocation(node);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.[0];
    return declaration && symbol ? { file: declaration.getSourceFile().fileName, name: symbol.getName() } : undefined;
  };
  const opOf = (argument: ts.Expression | undefined): string | undefined => {
    if (!argument) return undefined;
    const type = checker.getTypeAtLocation(argument);
    return type.isStringLiteral() ? type.value : undefined;
  };

  const operations: Use[] = [];
  const calls: Use[] = [];
  const mutations: string[] = [];
  for (const source of program.getSourceFiles()) {
    if (!source.fileName.startsWith(src)) continue;
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node)) {
        const target = declaredIn(node.expression);
        const use = { file: rel(source.fileName), op: opOf(node.arguments[0]) };
        if (target?.file === join(src, 'operation.ts') && target.name === 'useOperation') operations.push(use);
        if (target?.file === join(src, 'transport.ts') && target.name === 'call') calls.push(use);
        if (target?.name === 'useMutation' && target.file.includes('@tanstack')) mutations.push(use.file);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { operations, calls, mutations: [...new Set(mutations)] };
}

const { operations, calls, mutations } = scan();
// A feature's folder, or a part of one with its own (map/packages/).
const isMutationsModule = (file: string): boolean => /^renderer\/src\/[a-z]+(\/[a-z]+)?\/mutations\.ts$/.test(file);

describe('renderer operations', () => {
  it('finds the hooks it checks (the scan itself works)', () => {
    expect(operations).toContainEqual({ file: 'renderer/src/pois/mutations.ts', op: 'pois.update' });
    expect(calls).toContainEqual({ file: 'renderer/src/pois/queries.ts', op: 'pois.map' });
  });

  it('each operation is run by one hook, which names it literally, in its feature’s mutations.ts', () => {
    const misplaced = operations.filter((u) => !isMutationsModule(u.file) || u.op === undefined || !isOpName(u.op));
    expect(misplaced).toEqual([]);
    const twice = [...new Set(operations.map((u) => u.op))]
      .map((op) => ({ op, files: operations.filter((u) => u.op === op).map((u) => u.file) }))
      .filter((d) => d.files.length > 1);
    expect(twice).toEqual([]);
  });

  it('nothing else runs a mutation: useMutation only in operation.ts, call() only where data is read', () => {
    expect(mutations.filter((file) => file !== 'renderer/src/operation.ts')).toEqual([]);
    const written = new Set(operations.map((u) => u.op));
    const allowed = (u: Use): boolean =>
      u.file === 'renderer/src/operation.ts' ||
      (/\/queries\.ts$/.test(u.file) && u.op !== undefined && !written.has(u.op)) ||
      // A link opened in the system browser: a command to the desktop shell, no data changes.
      (u.file === 'renderer/src/externalLinks.ts' && u.op === 'app.openExternal');
    expect(calls.filter((u) => !allowed(u))).toEqual([]);
  });
});
