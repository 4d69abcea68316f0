import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/core/store/database.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The entries an index holds, counted on its leaf pages. */
const entries = (db: ReturnType<typeof openDatabase>, index: string): number =>
  db.prepare<[string], number>("SELECT coalesce(sum(ncell), 0) FROM dbstat WHERE name = ? AND pagetype = 'leaf'").pluck().get(index) ?? 0;

describe('migration 009 (partial address indexes)', () => {
  it('keeps every POI and id of a version-8 database; the exact-filter indexes hold only POIs with the value', () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-m9-'));
    dirs.push(dir);
    const file = join(dir, 'poi.sqlite');
    const v8 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 8) });
    v8.exec(`
      INSERT INTO clients (id, name, created_at) VALUES ('c', 'n', 0);
      INSERT INTO pois (id, client_id, name, lat, lng, city, country, postal_code, category_ids, registered_at, updated_at, name_key, city_key, country_key, postal_code_key)
        VALUES (7, 'c', 'Ñandú', 40, -3, 'Ávila', 'España', NULL, '[1]', 1, 2, 'nandu', 'avila', 'espana', NULL),
               (9, 'c', 'Plain', 41, -4, NULL, NULL, NULL, '[2]', 1, 2, 'plain', NULL, NULL, NULL);
    `);
    expect(entries(v8, 'pois_by_city')).toBe(2);
    const logged = v8.prepare('SELECT count(*) FROM changes').pluck().get();
    v8.close();

    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.at(-1)!.version);
    expect(db.prepare('SELECT id, name, city_key, category_ids FROM pois ORDER BY id').all()).toEqual([
      { id: 7, name: 'Ñandú', city_key: 'avila', category_ids: '[1]' },
      { id: 9, name: 'Plain', city_key: null, category_ids: '[2]' },
    ]);
    expect(entries(db, 'pois_by_city')).toBe(1);
    expect(entries(db, 'pois_by_country')).toBe(1);
    expect(entries(db, 'pois_by_postal_code')).toBe(0);
    // An exact filter still finds its POI through the index.
    const plan = db.prepare("EXPLAIN QUERY PLAN SELECT id FROM pois WHERE client_id = ? AND city_key = ?").all('c', 'avila') as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/INDEX pois_by_city \(client_id=\? AND city_key=\?\)/);
    expect(db.prepare('SELECT id FROM pois WHERE client_id = ? AND city_key = ?').pluck().all('c', 'avila')).toEqual([7]);
    // Only indexes changed: nothing was logged.
    expect(db.prepare('SELECT count(*) FROM changes').pluck().get()).toBe(logged);
    db.close();
  });
});
