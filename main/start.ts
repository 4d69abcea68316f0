import { createRequire } from 'node:module';
import { runServe } from './cli/serve.js';

/**
 * `npm start`. Where an Electron binary is installed the desktop window will open; where it is
 * not (it is an optional dependency, and its binary download fails without internet), the same
 * core is served on 127.0.0.1 in browser mode.
 */
function electronBinary(): string | undefined {
  try {
    const path: unknown = createRequire(import.meta.url)('electron');
    return typeof path === 'string' ? path : undefined;
  } catch {
    return undefined;
  }
}

const binary = electronBinary();
if (binary) {
  console.log(`Electron found at ${binary}; the desktop shell is not part of this build yet: serving in browser mode.`);
} else {
  console.log('Electron is not installed here: serving in browser mode on 127.0.0.1.');
}
runServe({ port: process.env.PORT }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exitCode = 1;
  },
);
