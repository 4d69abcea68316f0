/// <reference lib="dom" />
import { join } from 'node:path';
import { openCore } from '../support/core.js';
import { DATABASE_FILE } from '../../main/data-dir.js';
import { centreOn, expect, test } from './fixtures.js';

test('a POI added by another process on the same data folder appears on the open map by itself', async ({ app: page, info }) => {
  await centreOn(page, 38.7223, -9.1393, 16);
  const marker = page.locator('.leaflet-marker-icon[title="Added beside the app"]');
  await expect(marker).toHaveCount(0);

  // This test's process is "another process", as a `cli serve` beside the app would be.
  const other = openCore({ file: join(info.dataDir, DATABASE_FILE) });
  try {
    const poi = await other.pois.add(info.clientId, null, { lat: 38.7223, lng: -9.1393, name: 'Added beside the app', categories: [7], geocode: false });
    // No reload, no pan, no click: the open map redraws.
    await expect(marker).toBeVisible();
    other.pois.remove(info.clientId, poi.id);
    await expect(marker).toHaveCount(0);
  } finally {
    other.close();
  }
});
