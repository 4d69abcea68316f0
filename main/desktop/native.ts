import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * better-sqlite3's addon is built for Node's ABI by `npm install`, and that build does not load
 * in Electron. `npm run rebuild:electron` builds a second copy for Electron's ABI into
 * dist/native/electron/; in development we point better-sqlite3's `nativeBinding` at it. A
 * packaged app has its node_modules rebuilt for Electron by electron-builder and needs neither.
 */
export function electronNativeBinding(appPath: string, packaged: boolean): string | undefined {
  if (packaged) return undefined;
  const file = join(appPath, 'dist', 'native', 'electron', 'better_sqlite3.node');
  return existsSync(file) ? file : undefined;
}

export const NATIVE_HELP =
  'The database engine (better-sqlite3) is not built for this Electron version. ' +
  'Run `npm run rebuild:electron` in the project folder (it needs a C++ compiler and internet access to Electron headers), ' +
  'or use browser mode: `npm run cli -- serve`.';
