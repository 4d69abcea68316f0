import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * `npm run rebuild:electron`: builds better-sqlite3's addon for the installed Electron's ABI into
 * dist/native/electron/, leaving the Node build in node_modules for tests and the CLI. Needs the
 * Electron binary installed, a C++ toolchain, and access to Electron's headers.
 */
const root = join(import.meta.dirname, '..', '..');
const require = createRequire(import.meta.url);
const electronVersion = (JSON.parse(readFileSync(require.resolve('electron/package.json'), 'utf8')) as { version: string }).version;
const source = dirname(require.resolve('better-sqlite3/package.json'));
const work = join(root, 'dist', 'native', 'build');
mkdirSync(work, { recursive: true });
execFileSync('npx', ['--yes', 'node-gyp', 'rebuild', '--release', `--target=${electronVersion}`, '--dist-url=https://electronjs.org/headers', `--directory=${source}`, `--devdir=${join(work, 'gyp')}`], {
  stdio: 'inherit',
  env: { ...process.env, npm_config_runtime: 'electron' },
});
const out = join(root, 'dist', 'native', 'electron');
mkdirSync(out, { recursive: true });
copyFileSync(join(source, 'build', 'Release', 'better_sqlite3.node'), join(out, 'better_sqlite3.node'));
// node-gyp rebuilt node_modules' copy for Electron: rebuild it for Node again so tests keep working.
execFileSync('npm', ['rebuild', 'better-sqlite3'], { cwd: root, stdio: 'inherit' });
console.log(`better-sqlite3 built for Electron ${electronVersion} in ${out}`);
