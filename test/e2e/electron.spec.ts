/// <reference lib="dom" />
import { _electron as electron, expect, test } from '@playwright/test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { electronBinary } from '../../main/build/electron-binary.js';

const binary = electronBinary();

test('Electron smoke: the window opens and a POI added through IPC is on the map', async () => {
  const reason =
    'no Electron binary here: electron is an optional dependency whose binary download needs internet access; the UI is covered in browser mode';
  if (!binary) console.log(`skipped: ${reason}`);
  test.skip(!binary, reason);
  const root = join(import.meta.dirname, '..', '..');
  const { buildDesktop } = await import('../../main/build/desktop.js');
  await buildDesktop();
  const app = await electron.launch({
    executablePath: binary!,
    args: [join(root, 'dist', 'desktop', 'main.mjs')],
    env: { ...process.env, POI_DATA_DIR: mkdtempSync(join(tmpdir(), 'poi-electron-')) },
  });
  try {
    const window = await app.firstWindow();
    await expect(window.locator('.leaflet-container')).toBeVisible();
    const added = await window.evaluate(async () => {
      const bridge = (window as unknown as { poiConsole: { invoke(op: string, input: unknown): Promise<{ ok: boolean; value: { client_id?: string; id?: number } }> } }).poiConsole;
      const client = await bridge.invoke('clients.create', { name: 'Electron smoke' });
      const poi = await bridge.invoke('pois.add', { clientId: client.value.client_id, fields: { lat: 40.4169, lng: -3.7035, name: 'Smoke POI', categories: [7] } });
      return poi.ok;
    });
    expect(added).toBe(true);
    await window.reload();
    await window.evaluate(() => {
      location.hash = '#map=16/40.4169/-3.7035';
    });
    await expect(window.locator('.leaflet-marker-icon[title="Smoke POI"]')).toBeVisible();
  } finally {
    await app.close();
  }
});
