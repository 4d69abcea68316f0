import { join, resolve } from 'node:path';

/**
 * Where the admin UI is built and served from: dist/renderer, or $POI_RENDERER_DIR (so that a
 * test can serve from a folder of its own). A module of its own, without side effects, because
 * the server imports it and the desktop bundle imports the server's composition.
 */
export const rendererDir = (env: NodeJS.ProcessEnv = process.env): string =>
  env.POI_RENDERER_DIR ? resolve(env.POI_RENDERER_DIR) : join(import.meta.dirname, '..', '..', 'dist', 'renderer');
