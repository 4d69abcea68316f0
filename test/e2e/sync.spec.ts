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
import { AxeBuilder } from '@axe-core/playwright';

const missing = postgresMissing();
if (missing && process.env.POI_REQUIRE_POSTGRES === '1') throw new Error(`the sync panel's test must run here: ${missing}`);

/** The central, in this test's process (a real PostgreSQL and the real sync service); the app under test syncs with it. */
let pg: ThrowawayPostgres;
let pool: Pool;
let central: CentralApp;
let url: string;
let credential: string;
let other: string;

// Before the describe below connects a central: the app under test has none yet.
test('with no central set, the Sync panel shows no next automatic sync', async ({ app: page }) => {
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Sync' }).click();
  const facts = page.getByRole('region', { name: 'Sync' }).locator('dl[aria-label="Sync status"]');
  await expect(facts.locator('dt').first()).toHaveText('Central');
  await expect(facts.locator('dd').first()).toHaveText('not set');
  // The agent's timer has armed by now (it looks for a central every minute from the start).
  await expect.poll(() => consoleOp<{ nextAttempt: string | null }>(page, 'sync.status', {}).then((s) => s.nextAttempt)).not.toBeNull();
  // Shown anew with that status.
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('navigation', { name: 'Panels' }).getByRole('button', { name: 'Sync' }).click();
  await expect(facts.locator('dd')).toHaveCount(3);
  await expect(facts).not.toContainText('Next automatic sync');
  const axe = await new AxeBuilder({ page }).include('.sync-panel').analyze();
  expect(axe.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
});

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

  test('connects to a central, syncs, shows each kind of conflict from this desktop’s side, and resolves them', async ({ app: page, info }) => {
    test.setTimeout(120_000);
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

    const clientId = info.clientId;
    const poi = await consoleOp<PoiReply>(page, 'pois.add', { clientId, fields: { name: 'Sync fountain', lat: 39.47, lng: -0.38, categories: [5], geocode: false } });
    const bench = await consoleOp<PoiReply>(page, 'pois.add', { clientId, fields: { name: 'Sync bench', lat: 39.471, lng: -0.381, categories: [5], geocode: false } });
    const carol = await consoleOp<{ id: string }>(page, 'members.register', { clientId, fields: { username: 'fieldcarol', pwd: 'carol-secret', email: 'carol@example.org' } });
    const otherDevice = other.split('.')[0]!;
    const pushOther = async (changes: unknown[]) => {
      const reply = await fetch(new URL('/sync/push', url), { method: 'POST', headers: { authorization: `Bearer ${other}`, 'content-type': 'application/json' }, body: JSON.stringify({ changes }) });
      expect(reply.status).toBe(200);
    };
    try {
      await panel.getByRole('button', { name: 'Sync now' }).click();
      await expect(panel.getByRole('status').filter({ hasText: 'Synced:' })).toBeVisible({ timeout: 30_000 });
      await expect(panel.getByRole('definition').nth(1)).not.toHaveText('never');

      // Offline on both sides, another desktop (pushing first): renames the fountain, deletes the bench, registers FieldCarol.
      const at = Date.now();
      await pushOther([
        { op: `${otherDevice}:e2e-1`, entity: 'poi', uuid: poi.uuid, kind: 'update', fields: { name: ['Sync fountain', 'Fountain (other desktop)'] }, at },
        { op: `${otherDevice}:e2e-2`, entity: 'poi', uuid: bench.uuid, kind: 'delete', fields: { name: ['Sync bench', null], description: [null, null], phone: [null, null] }, at },
        {
          op: `${otherDevice}:e2e-3`,
          entity: 'member',
          uuid: '0c0c8a52-9d4b-4e2a-8f3e-1a2b3c4d5e6f',
          kind: 'create',
          fields: { username: [null, 'FieldCarol'], email: [null, 'carol.b@example.org'], pwd_hash: [null, '$argon2id$v=19$m=256,t=1,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA'], gender: [null, 'UNDEFINED'], email_verified: [null, 0], registered_at: [null, at] },
          at,
        },
      ]);
      // And this desktop, meanwhile: renames the fountain too, and gives the bench a phone number.
      await consoleOp(page, 'pois.update', { clientId, fields: { poi: poi.id, name: 'Fountain (this desktop)' } });
      await consoleOp(page, 'pois.update', { clientId, fields: { poi: bench.id, phone: '+34 961 000 000' } });
      await panel.getByRole('button', { name: 'Sync now' }).click();
      const conflicts = panel.getByRole('list', { name: 'Conflicts, oldest first' });
      await expect(conflicts.getByRole('listitem')).toHaveCount(3, { timeout: 30_000 });

      // Each side named from this desktop: its own value as "This desktop", the other by its device's name.
      const field = conflicts.getByRole('listitem').filter({ hasText: 'Name' }).filter({ hasText: 'Fountain (other desktop)' });
      await expect(field.getByRole('row', { name: /This desktop/ })).toContainText('Fountain (this desktop)');
      await expect(field.getByRole('row', { name: /Device Another desktop/ })).toContainText('Fountain (other desktop)');
      // An edit against a delete: the edit's values as fields, not JSON.
      const deleted = conflicts.getByRole('listitem').filter({ hasText: 'edited on one side, deleted on the other' });
      await expect(deleted).toContainText('Deleted');
      await expect(deleted.getByRole('definition').filter({ hasText: '+34 961 000 000' })).toBeVisible();
      await expect(deleted).not.toContainText('{');
      // A username registered on both: a clash, with its way out.
      const clash = conflicts.getByRole('listitem').filter({ hasText: 'Members with the same username' });
      await expect(clash).toContainText('FieldCarol');
      await expect(panel.getByRole('list', { name: 'Rows kept aside' })).toContainText('another member here has this username');

      const axe = await new AxeBuilder({ page }).include('.sync-panel').analyze();
      expect(axe.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
      // The three conflicts in one picture: a taller window, the list's heading at the top of the panel.
      await page.setViewportSize({ width: 1280, height: 1150 });
      await panel.getByRole('heading', { name: /Conflicts to resolve/ }).evaluate((h) => h.scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: screenshotPath('sync-conflicts') });

      // Keep the other desktop's name; keep the edit (the bench comes back with its phone); rename this desktop's Carol.
      await field.getByRole('button', { name: /^Keep Device Another desktop’s/i }).click();
      await expect(conflicts.getByRole('listitem')).toHaveCount(2, { timeout: 30_000 });
      await deleted.getByRole('button', { name: /^Keep the edit/ }).click();
      await expect(conflicts.getByRole('listitem')).toHaveCount(1, { timeout: 30_000 });
      await clash.getByRole('radio', { name: /made on this desktop/ }).check();
      await clash.getByLabel('New username').fill('fieldcarol2');
      await clash.getByRole('button', { name: 'Rename' }).click();
      await expect(panel.getByText('None.')).toBeVisible({ timeout: 30_000 });

      expect(await consoleOp<PoiReply>(page, 'pois.get', { clientId, poi: poi.id })).toMatchObject({ name: 'Fountain (other desktop)' });
      const { rows } = await pool.query<{ name: string; phone: string | null; deleted: boolean }>('SELECT name, phone, deleted_at IS NOT NULL AS deleted FROM pois WHERE uuid = ANY($1::uuid[]) ORDER BY name', [[poi.uuid, bench.uuid]]);
      expect(rows).toEqual([
        { name: 'Fountain (other desktop)', phone: null, deleted: false },
        { name: 'Sync bench', phone: '+34 961 000 000', deleted: false },
      ]);
      const members = await pool.query<{ username: string }>('SELECT username FROM members WHERE client_id = $1 AND deleted_at IS NULL ORDER BY username', [clientId]);
      expect(members.rows.map((m) => m.username)).toEqual(['FieldCarol', 'fieldcarol2']);
    } finally {
      await consoleOp(page, 'pois.delete', { clientId, poi: poi.id }).catch(() => undefined);
      await consoleOp(page, 'members.delete', { clientId, memberId: carol.id }).catch(() => undefined);
    }
  });
});
