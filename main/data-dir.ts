import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Electron names the per-user folder after package.json's productName; so do we, to share it. */
export const PRODUCT_NAME = 'POI Membership Admin';
export const DATABASE_FILE = 'poi.sqlite';

/** The per-user application-data folder Electron's app.getPath('userData') gives on each OS. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.POI_DATA_DIR) return resolve(env.POI_DATA_DIR);
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), PRODUCT_NAME);
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', PRODUCT_NAME);
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), PRODUCT_NAME);
}

/**
 * Creates the folder on first start (0700) and tightens an existing one that others can read
 * (it holds the database, its backups and the console token); where that is not allowed (a
 * folder owned by someone else) it warns instead. Returns the database path inside it.
 */
export function prepareDataDir(dir: string, warn: (line: string) => void = (line) => console.warn(line)): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) {
    try {
      chmodSync(dir, 0o700);
    } catch (error) {
      warn(`Warning: the data folder ${dir} can be read by other users, and its mode could not be changed to 0700 (${(error as Error).message}).`);
    }
  }
  return join(dir, DATABASE_FILE);
}
