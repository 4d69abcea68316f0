import { defaultDataDir, prepareDataDir } from '../data-dir.js';
import type { CliOptions } from './commands.js';

/** --data, else POI_DATA_DIR, else the per-user folder; created on first use. */
export function databasePath(options: CliOptions): { dir: string; file: string } {
  const dir = options.data ?? defaultDataDir();
  return { dir, file: prepareDataDir(dir) };
}

export function parsePort(text: string | undefined, fallback: number, flag = '--port'): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${flag} ${text}: expected 0-65535`);
  return port;
}

export function parsePositive(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} ${text}: expected a positive number`);
  return n;
}
