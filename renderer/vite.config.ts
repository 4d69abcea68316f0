import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The admin UI: built into dist/renderer, served by browser mode and loaded by Electron. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: './',
  plugins: [react()],
  // The bundled basemap is a large JSON: JSON.parse of a string is faster than a JS literal.
  json: { stringify: true },
  build: {
    outDir: fileURLToPath(new URL('../dist/renderer', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // The CSP forbids inline scripts and styles elements; keep every asset a file.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 2000,
    // The desktop package ships dist/: no source maps in it.
    sourcemap: false,
  },
});
