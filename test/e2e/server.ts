import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrowserMode } from '../../main/app/browser-mode.js';
import { openCore } from '../support/core.js';
import { prepareDataDir } from '../../main/data-dir.js';
import { E2E_INFO_FILE, E2E_PORT, E2E_TOKEN, type E2eInfo } from './info.js';

/**
 * The end-to-end tests' server: browser mode on a fresh data folder holding one client
 * application ("E2E Demo"). What the tests need to know goes to a small JSON file.
 */
const dir = mkdtempSync(join(tmpdir(), 'poi-e2e-'));
const file = prepareDataDir(dir);
const seed = openCore({ file });
const demo = seed.clients.create({ name: 'E2E Demo' });
// The tests keep the page offline by aborting its requests to tile servers; with the tile cache
// on, the server would fetch them instead. tile-server.spec.ts turns it on where it tests it.
seed.settings.setMap({ ...seed.settings.map(), tileCacheMb: 0 });
seed.close();
const running = await startBrowserMode({ file, port: E2E_PORT, token: E2E_TOKEN, log: () => undefined, sampleMap: false });
const info: E2eInfo = { url: running.url, dataDir: dir, clientId: demo.client_id, adminToken: demo.admin_token };
mkdirSync(join(E2E_INFO_FILE, '..'), { recursive: true });
writeFileSync(E2E_INFO_FILE, JSON.stringify(info));
console.log(`e2e server ready: ${running.url}`);
const stop = (): void => void running.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
