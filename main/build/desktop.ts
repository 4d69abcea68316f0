import { build } from 'esbuild';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

/**
 * Bundles the Electron main process (ESM) and its sandboxed preload (CommonJS, which a sandboxed
 * preload must be) into dist/desktop/. Packages stay external: node_modules ships with the app
 * and holds the native addons.
 */
export async function buildDesktop(): Promise<void> {
  const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning' } as const;
  await build({
    ...common,
    entryPoints: [join(root, 'main', 'desktop', 'main.ts')],
    outfile: join(root, 'dist', 'desktop', 'main.mjs'),
    format: 'esm',
    packages: 'external',
    sourcemap: true,
  });
  await build({
    ...common,
    entryPoints: [join(root, 'main', 'desktop', 'preload.cts')],
    outfile: join(root, 'dist', 'desktop', 'preload.cjs'),
    format: 'cjs',
    external: ['electron'],
  });
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await buildDesktop();
