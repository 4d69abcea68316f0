import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { CommitStamp } from '../../main/core/store/commit-stamp.js';

const dir = mkdtempSync(join(tmpdir(), 'poi-commit-stamp-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function open(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS t (x)');
  return db;
}

describe('the commit stamp', () => {
  it.each([
    ['wal-index', join(dir, 'a.sqlite')],
    ['statement', ':memory:'],
  ] as const)('read from the %s, moves with every commit of this connection or another, and with nothing else', (source, file) => {
    const db = open(file);
    const other = file === ':memory:' ? undefined : open(file);
    const stamp = new CommitStamp(db, file);
    expect(stamp.source).toBe(source);
    const first = stamp.read();
    db.prepare('SELECT count(*) FROM t').get();
    expect(stamp.read(), 'after a read').toBe(first);
    db.prepare('INSERT INTO t VALUES (1)').run();
    const afterOwn = stamp.read();
    expect(afterOwn, 'after a commit of this connection').not.toBe(first);
    if (other) {
      other.prepare('INSERT INTO t VALUES (2)').run();
      expect(stamp.read(), 'after a commit of another connection').not.toBe(afterOwn);
    }
    const settled = stamp.read();
    expect(stamp.read(), 'read twice with nothing between').toBe(settled);
    other?.close();
    db.close();
    stamp.close();
  });
});
