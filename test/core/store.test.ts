import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/core/store/database.js';
import { NewerSchemaError } from '../../main/core/store/migrate.js';
import type { Migration } from '../../main/core/store/migration.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';

const dirs: string[] = [];
const tempFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'poi-store-'));
  dirs.push(dir);
  return join(dir, 'poi.sqlite');
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const m1: Migration = { version: 1, name: 'one', up: (db) => db.exec('CREATE TABLE a (x INTEGER) STRICT') };
const m2: Migration = { version: 2, name: 'two', up: (db) => db.exec('CREATE TABLE b (y TEXT) STRICT') };

describe('the store', () => {
  it('opens a file in WAL mode with foreign keys on and full sync', () => {
    const db = openDatabase(tempFile());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    db.close();
  });

  it('migrates a new database to the latest schema version, every table STRICT', () => {
    const db = openDatabase(':memory:');
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    // Virtual tables (the R*Tree) and their shadow tables cannot be STRICT; every other can.
    const tables = (db.pragma('table_list') as Array<{ schema: string; name: string; type: string; strict: number }>).filter(
      (t) => t.schema === 'main' && t.type === 'table' && !t.name.startsWith('sqlite_'),
    );
    expect(tables.length).toBeGreaterThan(3);
    for (const t of tables) expect(t.strict, t.name).toBe(1);
    db.close();
  });

  it('refuses a database written by a newer version, naming both versions', () => {
    const file = tempFile();
    const raw = new BetterSqlite3(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 5}`);
    raw.close();
    expect(() => openDatabase(file)).toThrow(NewerSchemaError);
    expect(() => openDatabase(file)).toThrow(new RegExp(`schema ${MIGRATIONS.length + 5}.*knows up to ${MIGRATIONS.length}`));
  });

  it('keeps a copy of an existing database before a migration changes it', () => {
    const file = tempFile();
    const v1 = openDatabase(file, { migrations: [m1] });
    v1.prepare('INSERT INTO a VALUES (42)').run();
    v1.close();
    const v2 = openDatabase(file, { migrations: [m1, m2], now: () => Date.UTC(2026, 1, 3) });
    expect(v2.pragma('user_version', { simple: true })).toBe(2);
    v2.close();
    const backups = readdirSync(join(file, '..')).filter((f) => f.endsWith('.bak'));
    expect(backups).toEqual(['poi.sqlite.v1-2026-02-03T00-00-00-000Z.bak']);
    const copy = new BetterSqlite3(join(file, '..', backups[0]!), { readonly: true });
    expect(copy.pragma('user_version', { simple: true })).toBe(1);
    expect(copy.prepare('SELECT x FROM a').pluck().get()).toBe(42);
    copy.close();
  });

  it('takes no backup of a brand-new file or of an up-to-date one', () => {
    const file = tempFile();
    openDatabase(file, { migrations: [m1] }).close();
    openDatabase(file, { migrations: [m1] }).close();
    expect(readdirSync(join(file, '..')).filter((f) => f.endsWith('.bak'))).toEqual([]);
  });

  it('rolls a failing migration back whole, leaving user_version where it was', () => {
    const file = tempFile();
    openDatabase(file, { migrations: [m1] }).close();
    const broken: Migration = {
      version: 2,
      name: 'broken',
      up: (db) => {
        db.exec('CREATE TABLE half (z INTEGER) STRICT');
        throw new Error('boom');
      },
    };
    expect(() => openDatabase(file, { migrations: [m1, broken] })).toThrow('boom');
    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    expect(db.prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'half'").pluck().get()).toBe(0);
    db.close();
  });

  it('refuses a migration list that is not numbered 1, 2, 3...', () => {
    expect(() => openDatabase(':memory:', { migrations: [m2] })).toThrow(/numbered 2, expected 1/);
  });
});

describe('migration 001 (membership)', () => {
  it('enforces that admin tokens have no member and member tokens have one', () => {
    const db = openDatabase(':memory:', { migrations: MIGRATIONS.slice(0, 1) });
    db.prepare("INSERT INTO clients VALUES ('c', 'n', 0, 0)").run();
    const insert = db.prepare('INSERT INTO tokens (hash, client_id, member_id, role, created_at) VALUES (?, ?, ?, ?, 0)');
    expect(() => insert.run(Buffer.from('a'), 'c', null, 'member')).toThrow(/CHECK/);
    expect(() => insert.run(Buffer.from('b'), 'c', null, 'admin')).not.toThrow();
    expect(() => insert.run(Buffer.from('c'), 'nope', null, 'admin')).toThrow(/FOREIGN KEY/);
    db.close();
  });

  it('keeps usernames and e-mails unique per client through their lower-cased keys', () => {
    const db = openDatabase(':memory:', { migrations: MIGRATIONS.slice(0, 1) });
    db.prepare("INSERT INTO clients VALUES ('c1', 'n', 0, 0), ('c2', 'n', 0, 0)").run();
    const insert = db.prepare(
      "INSERT INTO members (id, client_id, username, username_key, email, email_key, pwd_hash, registered_at) VALUES (?, ?, 'U', 'u', 'E', 'e', 'h', 0)",
    );
    insert.run('m1', 'c1');
    expect(() => insert.run('m2', 'c1')).toThrow(/UNIQUE/);
    expect(() => insert.run('m3', 'c2')).not.toThrow();
    db.close();
  });
});
