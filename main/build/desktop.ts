import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');

/**
 * Bundles the Electron main process (ESM) and its sandboxed preload (CommonJS, which a sandboxed
 * preload must be) into dist/desktop/. Packages stay external: node_modules ships with the app
 * and holds the native addons. What main loads with `import()` (the API listener, with Fastify)
 * is split into files of its own beside main.mjs, loaded only when it runs. No source maps: what
 * is built here is what gets packaged, and the folder is emptied first so that none is left from
 * an older build.
 */
export async function buildDesktop(): Promise<void> {
  const out = join(root, 'dist', 'desktop');
  rmSync(out, { recursive: true, force: true });
  const common = { bundle: true, platform: 'node', target: 'node20', logLevel: 'warning', sourcemap: false } as const;
  await build({
    ...common,
    // The side process's entry (main/core/jobs/side-process.ts) is a file of its own beside main.mjs.
    entryPoints: { main: join(root, 'main', 'desktop', 'main.ts'), 'side-task': join(root, 'main', 'core', 'jobs', 'side-task.ts') },
    outdir: out,
    outExtension: { '.js': '.mjs' },
    // Beside main.mjs: import.meta.dirname is the same in every file.
    chunkNames: '[name]-[hash]',
    splitting: true,
    format: 'esm',
    packages: 'external',
  });
  await build({
    ...common,
    entryPoints: [join(root, 'main', 'desktop', 'preload.cts')],
    outfile: join(out, 'preload.cjs'),
    format: 'cjs',
    external: ['electron'],
  });
}

if (process.argv[1] && import.meta.filename === process.argv[1]) await buildDesktop();
