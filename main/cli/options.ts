import { defaultDataDir, prepareDataDir } from '../data-dir.js';

export interface CliOptions {
  data?: string | undefined;
  port?: string | undefined;
  host?: string | undefined;
  name?: string | undefined;
  out?: string | undefined;
  client?: string | undefined;
  'implicit-flow'?: boolean | undefined;
  on?: boolean | undefined;
  off?: boolean | undefined;
  'rate-limit'?: string[] | undefined;
  'nominatim-url'?: string | undefined;
  'geocode-timeout'?: string | undefined;
  'no-reply-cache'?: boolean | undefined;
  format?: string | undefined;
  geocode?: boolean | undefined;
  'dry-run'?: boolean | undefined;
  'create-categories'?: boolean | undefined;
  'add-identical'?: boolean | undefined;
  plain?: boolean | undefined;
  postgres?: string | undefined;
  url?: string | undefined;
  credential?: string | undefined;
  mine?: boolean | undefined;
  theirs?: boolean | undefined;
  value?: string | undefined;
  pushed?: boolean | undefined;
  earlier?: boolean | undefined;
  rename?: string | undefined;
  merge?: string | undefined;
  'insecure-http'?: boolean | undefined;
  policy?: string | undefined;
  'allow-plain-http'?: boolean | undefined;
  'client-name'?: string | undefined;
}

/** --data, else POI_DATA_DIR, else the per-user folder; created on first use. */
export function databasePath(options: CliOptions): { dir: string; file: string } {
  const dir = options.data ?? defaultDataDir();
  return { dir, file: prepareDataDir(dir) };
}

export function parsePort(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port ${text}: expected 0-65535`);
  return port;
}

export function parsePositive(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} ${text}: expected a positive number`);
  return n;
}
