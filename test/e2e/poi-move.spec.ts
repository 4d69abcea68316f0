/// <reference lib="dom" />
import BetterSqlite3 from 'better-sqlite3';
import { join } from 'node:path';
import type { PoiReply } from '../../shared/wire.js';
import { DATABASE_FILE } from '../../main/data-dir.js';
import { answerConfirm, centreOn, consoleOp, expect, test, type Page } from './fixtures.js';

/** A POI of its own for each test, with the map centred on it. */
async function placePoi(page: Page, clientId: string, name: string, lat: number, lng: number): Promise<PoiReply> {
  const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId, fields: { lat, lng, name, categories: [7], geocode: false } });
  await centreOn(page, lat, lng, 16);
  await expect(page.locator(`.leaflet-marker-icon[title="${name}"]`)).toBeVisible();
  return poi;
}

/** Drags a marker by (dx, dy) pixels with the mouse, as a person would. */
async function drag(page: Page, marker: ReturnType<Page['locator']>, dx: number, dy: number): Promise<void> {
  const from = (await marker.boundingBox())!;
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2 + dx, from.y + from.height / 2 + dy, { steps: 8 });
  await page.mouse.up();
}

const at = async (marker: ReturnType<Page['locator']>): Promise<{ x: number; y: number }> => {
  const box = (await marker.boundingBox())!;
  return { x: Math.round(box.x), y: Math.round(box.y) };
};

test('a move the database refuses puts the marker back where the POI is stored, and says why', async ({ app: page, info }) => {
  const poi = await placePoi(page, info.clientId, 'Held by another program', 41.3851, 2.1734);
  const marker = page.locator('.leaflet-marker-icon[title="Held by another program"]');
  const stored = await at(marker);

  // Another program (this test's process) holds the database's write lock while the move is
  // confirmed: the update waits the busy timeout, then is refused, and nothing is written.
  const other = new BetterSqlite3(join(info.dataDir, DATABASE_FILE));
  try {
    other.exec('BEGIN IMMEDIATE');
    await drag(page, marker, 60, 40);
    await answerConfirm(page, 'Move', 'Move “Held by another program” to');
    expect(await at(marker)).not.toEqual(stored);

    // Back once the refusal came (after the 5 s busy timeout), and told why.
    await expect.poll(() => at(marker), { timeout: 15_000 }).toEqual(stored);
    const notice = page.getByRole('alert').filter({ hasText: 'another program is holding the database' });
    await expect(notice).toBeVisible();
    await expect(notice).toContainText('Held by another program');
  } finally {
    other.exec('ROLLBACK');
    other.close();
  }
  const after = await consoleOp<PoiReply>(page, 'pois.get', { clientId: info.clientId, poi: poi.id });
  expect([after.latitude, after.longitude]).toEqual([41.3851, 2.1734]);

  // The notice stays until dismissed, from the keyboard too.
  // Exactly: the notices at the map's foot have their own (Dismiss the map's notices).
  const dismiss = page.getByRole('button', { name: 'Dismiss', exact: true });
  await dismiss.focus();
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert').filter({ hasText: 'another program is holding the database' })).toHaveCount(0);
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
});

test('a POI deleted while its move waits for confirmation: the move says so and the marker goes', async ({ app: page, info }) => {
  const poi = await placePoi(page, info.clientId, 'Deleted meanwhile', 41.3879, 2.1699);
  const marker = page.locator('.leaflet-marker-icon[title="Deleted meanwhile"]');

  await drag(page, marker, -50, 30);
  // Another window deletes it while this one asks whether to move it.
  await expect(page.getByRole('alertdialog', { name: 'Move a POI' })).toBeVisible();
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
  await answerConfirm(page, 'Move');

  const notice = page.getByRole('alert').filter({ hasText: `no POI ${poi.id}` });
  await expect(notice).toBeVisible();
  await expect(notice).toContainText('Deleted meanwhile');
  await expect(marker).toHaveCount(0);
});

test('a move cancelled at the confirmation puts the marker back and changes nothing', async ({ app: page, info }) => {
  const poi = await placePoi(page, info.clientId, 'Stays put', 41.3902, 2.1540);
  const marker = page.locator('.leaflet-marker-icon[title="Stays put"]');
  const stored = await at(marker);

  await drag(page, marker, 40, -40);
  await answerConfirm(page, 'Leave it where it was', 'Move “Stays put” to');
  await expect.poll(() => at(marker)).toEqual(stored);
  const after = await consoleOp<PoiReply>(page, 'pois.get', { clientId: info.clientId, poi: poi.id });
  expect([after.latitude, after.longitude]).toEqual([41.3902, 2.154]);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
});
