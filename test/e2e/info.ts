import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 4781);
export const E2E_TOKEN = 'e2e-console-token-not-secret';
export const E2E_INFO_FILE = join(import.meta.dirname, '..', 'results', 'e2e-server.json');

export interface E2eInfo {
  url: string;
  dataDir: string;
  clientId: string;
  adminToken: string;
}

export const e2eInfo = (): E2eInfo => JSON.parse(readFileSync(E2E_INFO_FILE, 'utf8')) as E2eInfo;
