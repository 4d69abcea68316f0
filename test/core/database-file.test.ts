import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { closedCleanly } from '../../main/core/store/clean-close.js';
import { openDatabase } from '../../main/core/store/database.js';
import { openCore } from '../support/core.js';
import type { Migration } from '../../main/core/store/migration.js';
import { MIGRATIONS } from '../../main/core/store/migrations/index.js';
import { prepareDataDir } from '../../main/data-dir.js';

const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'poi-file-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const mode = (path: string): number => statSync(path).mode & 0o777;
const backups = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.bak'));

describe('a damaged or empty database file', () => {
  it('refuses a 0-byte file instead of silently starting a new empty database, and lists the backups', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    openDatabase(file).close();
    writeFileSync(`${file}.v3-2026-01-01T00-00-00-000Z.bak`, readFileSync(file));
    writeFileSync(file, '');
    // Emptied a while ago: not another process's first start in progress.
    utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    expect(() => openDatabase(file)).toThrow(new RegExp(`${file.replace(/[.\\/]/g, '\\$&')} is empty \\(0 bytes\\)[\\s\\S]*v3-2026-01-01T00-00-00-000Z\\.bak`));
    expect(statSync(file).size).toBe(0);
  });

  it('a first start that fails before SQLite writes anything leaves no file behind for the next start to refuse', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    expect(() => openDatabase(file, { nativeBinding: join(dir, 'missing', 'better_sqlite3.node') })).toThrow();
    expect(existsSync(file)).toBe(false);
    openDatabase(file).close();
    expect(statSync(file).size).toBeGreaterThan(0);
  });

  it('a first start killed before SQLite wrote the first page leaves nothing that the next start refuses', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    const killed = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', 'support', 'first-start-killed.ts'), file], { encoding: 'utf8' });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    db.close();
  });

  it('waits for a 0-byte file that another process is creating right now, instead of refusing it', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    writeFileSync(file, '');
    // The other process writes its first page a moment later.
    const source = join(dir, 'source.sqlite');
    openDatabase(source).close();
    const other = spawn(process.execPath, ['-e', `setTimeout(() => require('fs').copyFileSync(${JSON.stringify(source)}, ${JSON.stringify(file)}), 300)`]);
    const db = openDatabase(file);
    expect(db.pragma('user_version', { simple: true })).toBeGreaterThan(0);
    db.close();
    other.kill();
  });

  it('names the file, says it is damaged and lists the backups, instead of a bare SQLite message', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    const db = openDatabase(file);
    db.prepare("INSERT INTO clients (id, name, implicit_flow, created_at) VALUES ('c', 'n', 0, 0)").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    writeFileSync(`${file}.v4-2026-02-02T00-00-00-000Z.bak`, readFileSync(file));
    // Scribble over the second page (the clients table): the file header still says SQLite.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, 4096);
    closeSync(fd);
    let message = '';
    try {
      openDatabase(file).close();
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`The database file ${file} is damaged`);
    expect(message).toContain('v4-2026-02-02T00-00-00-000Z.bak');
    expect(message).not.toBe('database disk image is malformed');
  });

  it('says the same of a file that is not a database at all', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    writeFileSync(file, 'this is a text file, not a database '.repeat(200));
    expect(() => openDatabase(file)).toThrow(/is damaged \(file is not a database\)[\s\S]*No backup of it exists/);
  });

  it('leaves no new backup behind when an upgrade fails, however many times it is tried', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    const m1: Migration = { version: 1, name: 'one', up: (db) => db.exec('CREATE TABLE a (x INTEGER) STRICT') };
    const broken: Migration = { version: 2, name: 'broken', up: () => { throw new Error('boom'); } };
    openDatabase(file, { migrations: [m1] }).close();
    let t = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 3; i++) expect(() => openDatabase(file, { migrations: [m1, broken], now: () => (t += 1000) })).toThrow(/boom/);
    expect(backups(dir)).toEqual([]);
    expect(() => openDatabase(file, { migrations: [m1, broken] })).toThrow(/schema 2 \(broken\) failed, so nothing was changed: boom/);
    const db = new BetterSqlite3(file, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(1);
    db.close();
  });
});

describe('file modes', () => {
  it('creates the database, its WAL and shared-memory files and its backups 0600, in a folder that already existed with 0755', () => {
    const previous = process.umask(0o022);
    try {
      const dir = join(tempDir(), 'data');
      mkdirSync(dir, { mode: 0o755 });
      chmodSync(dir, 0o755);
      const file = prepareDataDir(dir, () => undefined);
      expect(mode(dir)).toBe(0o700);
      const old = openDatabase(file, { migrations: MIGRATIONS.slice(0, 3) });
      old.prepare("INSERT INTO clients VALUES ('c', 'n', 0, 0)").run();
      old.close();
      const db = openDatabase(file);
      db.prepare("INSERT INTO clients (id, name, implicit_flow, created_at) VALUES ('d', 'n', 0, 0)").run();
      for (const path of [file, `${file}-wal`, `${file}-shm`]) expect({ path, mode: mode(path) }).toEqual({ path, mode: 0o600 });
      expect(backups(dir)).toHaveLength(1);
      expect(mode(join(dir, backups(dir)[0]!))).toBe(0o600);
      db.close();
    } finally {
      process.umask(previous);
    }
  });

  it('tightens a database file and backups that an earlier version left world-readable', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    openDatabase(file).close();
    const oldBackup = `${file}.v2-2025-01-01T00-00-00-000Z.bak`;
    writeFileSync(oldBackup, readFileSync(file));
    chmodSync(file, 0o644);
    chmodSync(oldBackup, 0o644);
    openDatabase(file).close();
    expect(mode(file)).toBe(0o600);
    expect(mode(oldBackup)).toBe(0o600);
  });

  it('warns when the data folder cannot be tightened', () => {
    // Even root may not chmod a folder of /proc: a real folder that others can read and that
    // cannot be tightened.
    const warnings: string[] = [];
    prepareDataDir('/proc/self/attr', (w) => warnings.push(w));
    expect(warnings).toEqual([expect.stringMatching(/data folder \/proc\/self\/attr can be read by other users.*0700/)]);
  });
});

describe('the check at start (store/clean-close.ts)', () => {
  const fileCore = (file: string) => openCore({ file });

  it('is skipped after a clean close, once; a file changed since is checked and refused if damaged', () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    const core = fileCore(file);
    core.clients.create({ name: 'Kept' });
    core.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    expect(closedCleanly(file)).toBe(true);
    // Used once: a start that then crashes leaves no mark for the next.
    expect(closedCleanly(file)).toBe(false);

    fileCore(file).close();
    // Scribbled over after the close: its time moved, so the next start checks and refuses it.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, 4096);
    closeSync(fd);
    expect(() => openDatabase(file).close()).toThrow(/is damaged/);
  });

  /** Another process that opens the file, writes a row into the WAL and waits to be killed. */
  async function writer(file: string): Promise<ReturnType<typeof spawn>> {
    const child = spawn(process.execPath, ['-e', `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(file)}); db.exec('CREATE TABLE IF NOT EXISTS crash_probe (x); INSERT INTO crash_probe VALUES (1)'); console.log('written'); setInterval(() => {}, 1000);`], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((resolve, reject) => {
      child.stdout!.once('data', resolve);
      child.once('exit', (code) => reject(new Error(`the writing process exited ${code} before writing`)));
    });
    return child;
  }
  const killed = async (child: ReturnType<typeof spawn>): Promise<void> => {
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
  };

  it('is not skipped after a crash of another program that wrote since the clean close (a WAL is left)', async () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    fileCore(file).close();
    await killed(await writer(file));
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(closedCleanly(file)).toBe(false);
    const core = fileCore(file);
    expect(core.db.prepare('SELECT x FROM crash_probe').pluck().get()).toBe(1);
    core.close();
    expect(closedCleanly(file)).toBe(true);
  });

  it('vouches for nothing when another process still has the file open at the close', async () => {
    const dir = tempDir();
    const file = join(dir, 'poi.sqlite');
    fileCore(file).close();
    const child = await writer(file);
    try {
      fileCore(file).close();
      expect(closedCleanly(file)).toBe(false);
    } finally {
      await killed(child);
    }
  });
});
