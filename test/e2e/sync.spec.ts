/// <reference lib="dom" />
import type { Pool } from 'pg';
import type { PoiReply } from '../../shared/wire.js';
import { Devices } from '../../main/central/devices.js';
import { startCentralServer, type CentralApp } from '../../main/central/server.js';
import { migrateCentral } from '../../main/central/store/migrate.js';
import { centralPool } from '../../main/central/store/pool.js';
import { postgresMissing, startPostgres, type ThrowawayPostgres } from '../support/postgres.js';
import { consoleOp, expect, screenshotPath, test } from './fixtures.js';
import { e2eInfo } from './info.js';

const missing = postgresMissing();
if (missing && process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the sync panel's test must run here: ${missing}`);

/** The central, in this test's process (a real PostgreSQL and the real sync service); the app under test syncs with it. */
let pg: ThrowawayPostgres;
let pool: Pool;
let central: CentralApp;
let url: string;
let credential: string;
let other: string;

test.describe('the Sync panel', () => {
  test.skip(missing !== undefined, `needs PostgreSQL with PostGIS: ${missing}`);
  test.beforeAll(async () => {
    pg = await startPostgres();
    pool = centralPool(pg.url);
    await migrateCentral(pool);
    ({ app: central, url } = await startCentralServer(pool));
    const devices = new Devices(pool);
    const clientId = e2eInfo().clientId;
    credential = (await devices.add(clientId, 'E2E desktop', 'E2E Demo')).credential;
    other = (await devices.add(clientId, 'Another desktop')).credential;
  });
  test.afterAll(async () => {
    await central?.close();
    await pool?.end();
    await pg?.remove();
  });

  test('connects to a central, syncs, and resolves a conflict keeping the other desktop’s value', async ({ app: page, info }) => {
    test.setTimeout(90_000);
    await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Sync' }).click();
    const panel = page.getByRole('region', { name: 'Sync' });
    await expect(panel.getByRole('definition').first()).toHaveText('not set');
    // A mistyped credential is refused where it was typed, and nothing is kept.
    await panel.getByLabel('Central address').fill(url);
    await panel.getByLabel('Device credential').fill('not-a-credential');
    await panel.getByRole('button', { name: 'Connect' }).click();
    await expect(panel.getByRole('alert')).toContainText('must be a device credential');
    await panel.getByLabel('Device credential').fill(credential);
    await panel.getByRole('button', { name: 'Connect' }).click();
    await expect(panel.getByText('Connected: the central answered and knows this device.')).toBeVisible();

    const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId: info.clientId, fields: { name: 'Sync fountain', lat: 39.47, lng: -0.38, categories: [5], geocode: false } });
    try {
      await panel.getByRole('button', { name: 'Sync now' }).click();
      await expect(panel.getByRole('status').filter({ hasText: 'Synced:' })).toBeVisible({ timeout: 30_000 });
      await expect(panel.getByRole('definition').nth(1)).not.toHaveText('never');

      // Offline on both sides: another desktop renames it (pushed first), and so does this one.
      const pushed = await fetch(new URL('/sync/push', url), {
        method: 'POST',
        headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' },
        body: JSON.stringify({ changes: [{ op: 'e2e-other-1', entity: 'poi', uuid: poi.uuid, kind: 'update', fields: { name: ['Sync fountain', 'Fountain (other desktop)'] }, at: Date.now() }] }),
      });
      expect(pushed.status).toBe(200);
      await consoleOp(page, 'pois.update', { clientId: info.clientId, fields: { poi: poi.id, name: 'Fountain (this desktop)' } });
      await panel.getByRole('button', { name: 'Sync now' }).click();
      const conflicts = panel.getByRole('list', { name: 'Conflicts, oldest first' });
      const item = conflicts.getByRole('listitem').filter({ hasText: 'POI “Fountain (this desktop)”, name' });
      await expect(item).toContainText('Fountain (other desktop)', { timeout: 30_000 });
      await expect(item).toContainText('Fountain (this desktop)');
      await item.scrollIntoViewIfNeeded();
      await page.screenshot({ path: screenshotPath('sync-conflict') });

      await item.getByRole('button', { name: /^Keep theirs/ }).click();
      await expect(panel.getByText('None.')).toBeVisible({ timeout: 30_000 });
      expect(await consoleOp<PoiReply>(page, 'pois.get', { clientId: info.clientId, poi: poi.id })).toMatchObject({ name: 'Fountain (other desktop)' });
      // And the central holds it too.
      const { rows } = await pool.query<{ name: string }>('SELECT name FROM pois WHERE uuid = $1', [poi.uuid]);
      expect(rows[0]!.name).toBe('Fountain (other desktop)');
    } finally {
      await consoleOp(page, 'pois.delete', { clientId: info.clientId, poi: poi.id });
    }
  });
});
