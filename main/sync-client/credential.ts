import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SyncTarget } from './client.js';

/**
 * Where a desktop keeps the central's address and its device credential: `sync-target.json`
 * (mode 0600) in the data folder, as ssh keys and ~/.pgpass are kept, written once by `sync
 * --url URL --credential CRED`. `POI_SYNC_CREDENTIAL` in the environment overrides it and is then
 * never written. The central keeps only the secret's hash and can revoke it.
 */
const SYNC_TARGET_FILE = 'sync-target.json';

export function saveTarget(dir: string, target: SyncTarget): void {
  const file = join(dir, SYNC_TARGET_FILE);
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(target)}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

export function loadTarget(dir: string): SyncTarget | undefined {
  const file = join(dir, SYNC_TARGET_FILE);
  const fromEnv = process.env.POI_SYNC_CREDENTIAL;
  if (!existsSync(file)) return undefined;
  chmodSync(file, 0o600);
  const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<SyncTarget>;
  if (typeof saved.url !== 'string' || (typeof saved.credential !== 'string' && !fromEnv)) throw new Error(`${file} is not a sync target: run sync --url URL --credential CRED`);
  return { url: saved.url, credential: fromEnv ?? saved.credential ?? '', ...(saved.insecureHttp === true ? { insecureHttp: true } : {}) };
}
