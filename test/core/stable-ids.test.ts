import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore } from '../support/core.js';
import { openDatabase } from '../../main/core/store/database.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';
import { testCore } from '../support/core.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('ids are never reused', () => {
  it('a deleted POI, category or warning id is never handed out again', async () => {
    const core = testCore();
    const { client_id: c } = core.clients.create({ name: 'A' });
    const add = () => core.pois.add(c, null, { lat: 1, lng: 2, name: 'P', categories: [1] });
    const first = await add();
    const second = await add();
    core.pois.remove(c, second.id);
    expect((await add()).id).toBeGreaterThan(second.id);

    const category = core.categories.add(c, { desc: 'Mine' });
    core.categories.remove(c, category.Id);
    core.db.prepare('DELETE FROM categories WHERE id = ?').run(category.Id);
    expect(core.categories.add(c, { desc: 'Another of mine' }).Id).toBeGreaterThan(category.Id);

    const w = core.warnings.add(null, { poi: first.id, type: 'CLOSED' });
    core.warnings.remove([first.id], undefined);
    expect(core.warnings.add(null, { poi: first.id, type: 'CLOSED' }).id).toBeGreaterThan(w.id);
    core.close();
  });
});

describe('ids across a restart', () => {
  it('a deleted id is not handed out again after the service restarts on the same file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-ids-'));
    dirs.push(dir);
    const file = join(dir, 'poi.sqlite');
    const first = openCore({ file });
    const c = first.clients.create({ name: 'A' }).client_id;
    const p1 = await first.pois.add(c, null, { lat: 1, lng: 2, name: 'P', categories: [1] });
    const p2 = await first.pois.add(c, null, { lat: 1, lng: 2, name: 'Q', categories: [1] });
    first.pois.remove(c, p2.id);
    const cat = first.categories.add(c, { desc: 'Gone' });
    first.db.prepare('DELETE FROM categories WHERE id = ?').run(cat.Id);
    first.close();
    const second = openCore({ file });
    const p3 = await second.pois.add(c, null, { lat: 1, lng: 2, name: 'R', categories: [1] });
    expect(p3.id).toBeGreaterThan(p2.id);
    expect(second.categories.add(c, { desc: 'New' }).Id).toBeGreaterThan(cat.Id);
    expect(second.pois.get(c, p1.id).name).toBe('P');
    second.close();
  });
});

describe('migration 004 (stable identity, folded text)', () => {
  it('keeps every POI, category link, warning and id of a version-3 database, and fills the folded keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-m4-'));
    dirs.push(dir);
    const file = join(dir, 'poi.sqlite');
    const v3 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 3) });
    v3.exec(`
      INSERT INTO clients VALUES ('c', 'n', 0, 0);
      INSERT INTO members (id, client_id, username, username_key, email, email_key, pwd_hash, registered_at) VALUES ('m', 'c', 'u', 'u', 'e', 'e', 'h', 0);
      INSERT INTO categories (id, client_id, description, created_at) VALUES (31, 'c', 'Own', 0);
      INSERT INTO pois (id, client_id, name, description, lat, lng, city, country, postal_code, created_by, registered_at, updated_at)
        VALUES (7, 'c', 'Ñandú', 'ÁGUILA', 40, -3, 'Ávila', 'España', 'AB-1', 'm', 1, 2),
               (9, 'c', 'Plain', NULL, 41, -4, NULL, NULL, NULL, NULL, 1, 2);
      INSERT INTO poi_categories VALUES (7, 31), (7, 1), (9, 2);
      INSERT INTO warnings (id, poi_id, type, member_id, created_at, data) VALUES (5, 7, 'WRONG_INFO', 'm', 3, '{"name":"X"}');
    `);
    v3.close();
    const db = openDatabase(file, { now: () => Date.UTC(2026, 5, 1) });
    // A copy of the version-3 file was kept before the upgrade.
    expect(readdirSync(dir).filter((n) => n.endsWith('.bak'))).toEqual(['poi.sqlite.v3-2026-06-01T00-00-00-000Z.bak']);
    // Every syncable entity has a UUID, distinct; members keep theirs (their id).
    const uuids = db.prepare('SELECT uuid FROM pois UNION ALL SELECT uuid FROM categories UNION ALL SELECT uuid FROM warnings').pluck().all() as string[];
    expect(uuids.length).toBe(2 + 31 + 1);
    expect(new Set(uuids).size).toBe(uuids.length);
    for (const u of uuids) expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(db.prepare('SELECT id FROM categories WHERE id = 31').pluck().get()).toBe(31);
    expect(db.prepare('SELECT id, name, name_key, description_key, city_key, country_key, postal_code_key, created_by FROM pois ORDER BY id').all()).toEqual([
      { id: 7, name: 'Ñandú', name_key: 'nandu', description_key: 'aguila', city_key: 'avila', country_key: 'espana', postal_code_key: 'ab-1', created_by: 'm' },
      { id: 9, name: 'Plain', name_key: 'plain', description_key: null, city_key: null, country_key: null, postal_code_key: null, created_by: null },
    ]);
    expect(db.prepare('SELECT poi_id, category_id FROM poi_categories ORDER BY 1, 2').all()).toEqual([
      { poi_id: 7, category_id: 1 },
      { poi_id: 7, category_id: 31 },
      { poi_id: 9, category_id: 2 },
    ]);
    expect(db.prepare('SELECT id, poi_id, data FROM warnings').all()).toEqual([{ id: 5, poi_id: 7, data: '{"name":"X"}' }]);
    // Each POI's categories as its own column (migration 008), which the upgrade wrote without logging a change.
    expect(db.prepare('SELECT id, category_ids FROM pois ORDER BY id').all()).toEqual([{ id: 7, category_ids: '[1,31]' }, { id: 9, category_ids: '[2]' }]);
    expect(db.prepare('SELECT count(*) FROM changes').pluck().get()).toBe(0);
    expect(db.prepare('SELECT id FROM pois_rtree ORDER BY id').pluck().all()).toEqual([7, 9]);
    // The R*Tree triggers are back on the rebuilt table, and the cascades still work.
    db.prepare('DELETE FROM pois WHERE id = 7').run();
    expect(db.prepare('SELECT id FROM pois_rtree').pluck().all()).toEqual([9]);
    expect(db.prepare('SELECT count(*) FROM warnings').pluck().get()).toBe(0);
    expect(db.prepare('SELECT count(*) FROM poi_categories WHERE poi_id = 7').pluck().get()).toBe(0);
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    db.close();
  });
});

describe('the logged tables and another program', () => {
  it('refuse writes from a connection without the service\'s functions (the sqlite3 shell), links included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-guard-'));
    try {
      const file = join(dir, 'poi.sqlite');
      const core = openCore({ file, geocoder: { reverse: async () => ({}) } });
      const clientId = core.clients.create({ name: 'c' }).client_id;
      const poi = await core.pois.add(clientId, null, { name: 'Guarded', lat: 40, lng: -3, categories: [6, 7], geocode: false });
      core.close();
      const shell = new BetterSqlite3(file);
      const before = shell.prepare('SELECT count(*) FROM changes').pluck().get();
      for (const sql of [
        `INSERT INTO poi_categories (poi_id, category_id) VALUES (${poi.id}, 8)`,
        `DELETE FROM poi_categories WHERE poi_id = ${poi.id}`,
        `UPDATE poi_categories SET category_id = 9 WHERE poi_id = ${poi.id}`,
        `UPDATE pois SET category_ids = '[8]' WHERE id = ${poi.id}`,
        `DELETE FROM pois WHERE id = ${poi.id}`,
        "UPDATE settings SET value = '{}'",
      ]) {
        expect(() => shell.exec(sql), sql).toThrow(/no such function: change_/);
      }
      expect(shell.prepare('SELECT category_id FROM poi_categories WHERE poi_id = ? ORDER BY 1').pluck().all(poi.id)).toEqual([6, 7]);
      expect(shell.prepare('SELECT category_ids FROM pois WHERE id = ?').pluck().get(poi.id)).toBe('[6,7]');
      expect(shell.prepare('SELECT count(*) FROM changes').pluck().get()).toBe(before);
      shell.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
