import { build } from 'esbuild';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

/**
 * Bundles the Electron main process (ESM) and its sandboxed preload (CommonJS, which a sandboxed
 * preload must be) into dist/desktop/. Packages stay external: node_modules ships with the app
 * and holds the native addons.
 */
export async function buildDesktop(): Promise<void> {
  await build({
    entryPoints: [join(root, 'main', 'desktop', 'main.ts')],
    outfile: join(root, 'dist', 'desktop', 'main.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    sourcemap: true,
    logLevel: 'warning',
  });
  await build({
    entryPoints: [join(root, 'main', 'desktop', 'preload.cts')],
    outfile: join(root, 'dist', 'desktop', 'preload.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['electron'],
    logLevel: 'warning',
  });
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await buildDesktop();
