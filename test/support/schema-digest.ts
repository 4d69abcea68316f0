import type { Database } from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../main/core/store/database.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';

/**
 * What a database's migrations created, as one SHA-256: every object of sqlite_master (its type,
 * name, table and SQL) and every table's rows (the system categories, the map's levels, the
 * R*Tree's shadow tables, the folded keys and cells of existing POIs), in a stable order. Columns
 * named `uuid` are left out: their default draws a random UUID (migration 004), the one part that
 * differs from one run to the next.
 */
export function schemaDigest(db: Database): string {
  const master = db.prepare<[], Record<string, unknown>>('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();
  const tables = db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  const rows: Record<string, string[]> = {};
  for (const table of tables) {
    const all = db.prepare<[], Record<string, unknown>>(`SELECT * FROM "${table.replace(/"/g, '""')}"`).all();
    rows[table] = all.map((row) => JSON.stringify(Object.entries(row).filter(([column]) => column !== 'uuid'))).sort();
  }
  return createHash('sha256').update(JSON.stringify({ master, rows })).digest('hex');
}

/** The digest after each version of a fresh install: versions 1 to n, each from an empty database. */
export function freshDigests(): Record<number, string> {
  const digests: Record<number, string> = {};
  for (let n = 1; n <= MIGRATIONS.length; n++) {
    const db = openDatabase(':memory:', { migrations: MIGRATIONS.slice(0, n) });
    digests[n] = schemaDigest(db);
    db.close();
  }
  return digests;
}

/**
 * Names whose fold is not the lower case: accents, ß, final sigma, ligatures, full-width forms,
 * dotted İ, titlecase ǅ, Hangul and kana that NFKD splits and NFC puts back, numerals.
 */
const NAMES = ['Ávila', 'Straße', 'ΆΘΗΝΑ', 'Αθήνας', 'ﬁsh Ａ', 'Ñandú', 'İstanbul', 'ǅemal', 'ﬀ', 'Ｔｏｋｙｏ', '한국', 'ガ', 'Ærø', 'ŉ', 'ΐ', 'Ⅻ', '①', 'Ёлка', 'ẞ'];

/**
 * The digest after each version of an upgrade: POIs written at version 3 (before the folded keys
 * of 004 and the cells of 013), then one version at a time, as a desktop that skipped none.
 */
export function upgradeDigests(): Record<number, string> {
  const dir = mkdtempSync(join(tmpdir(), 'poi-digest-'));
  const file = join(dir, 'poi.sqlite');
  const digests: Record<number, string> = {};
  try {
    const v3 = openDatabase(file, { migrations: MIGRATIONS.slice(0, 3) });
    v3.prepare("INSERT INTO clients (id, name, created_at) VALUES ('c1', 'one', 0)").run();
    const insert = v3.prepare(
      'INSERT INTO pois (client_id, name, description, lat, lng, city, country, postal_code, registered_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0)',
    );
    NAMES.forEach((name, i) => insert.run('c1', name, `${name} ${i}`, -89.5 + ((i * 37.25) % 179), -179.5 + ((i * 71.5) % 359), name, name.toUpperCase(), ` ${name} `));
    v3.close();
    for (let n = 4; n <= MIGRATIONS.length; n++) {
      const db = openDatabase(file, { migrations: MIGRATIONS.slice(0, n), now: () => n });
      digests[n] = schemaDigest(db);
      db.close();
    }
    return digests;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
