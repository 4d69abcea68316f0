import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startBrowserMode } from './app/browser-mode.js';
import { buildDesktop } from './build/desktop.js';
import { electronBinary } from './build/electron-binary.js';
import { ensureRenderer } from './build/renderer.js';
import { defaultDataDir, prepareDataDir } from './data-dir.js';

/**
 * `npm start`: builds what is stale, then opens the Electron window where Electron's binary is
 * installed. Where it is not (an optional dependency whose download needs internet), it says so
 * in one line and serves the same UI and core in browser mode on 127.0.0.1.
 */
async function main(): Promise<void> {
  ensureRenderer();
  const binary = electronBinary();
  if (binary) {
    await buildDesktop();
    const child = spawn(binary, [join(import.meta.dirname, '..', 'dist', 'desktop', 'main.mjs')], { stdio: 'inherit' });
    child.on('exit', (code) => process.exit(code ?? 0));
    return;
  }
  console.log('Electron is not installed here, so the app runs in browser mode: open the address below.');
  const dir = defaultDataDir();
  const running = await startBrowserMode({ file: prepareDataDir(dir), ...(process.env.PORT ? { port: Number(process.env.PORT) } : {}) });
  console.log(`Data: ${dir}`);
  console.log(`Admin UI: ${running.url}`);
  const stop = (): void => {
    void running.stop().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
