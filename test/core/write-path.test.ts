import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createCore } from '../../main/core/service.js';
import { openDatabase } from '../../main/core/store/database.js';
import { WriteBatcher } from '../../main/core/store/write-batcher.js';

const dirs: string[] = [];
const tempFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'poi-write-'));
  dirs.push(dir);
  return join(dir, 'poi.sqlite');
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('group commit', () => {
  it('commits the writes of one turn together, and acknowledges each only once it is on disk', async () => {
    const file = tempFile();
    const db = openDatabase(file);
    db.exec('CREATE TABLE t (x INTEGER NOT NULL) STRICT');
    const other = new BetterSqlite3(file, { readonly: true });
    const count = () => other.prepare('SELECT count(*) FROM t').pluck().get();
    const batcher = new WriteBatcher(db);
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const writes = [1, 2, 3].map((x) => batcher.run(() => insert.run(x).changes));
    // Nothing is visible to another connection (nor acknowledged) before the shared COMMIT.
    expect(count()).toBe(0);
    expect(await Promise.all(writes)).toEqual([1, 1, 1]);
    expect(count()).toBe(3);
    other.close();
    db.close();
  });

  it('rolls back a failing write alone; the others of its batch are kept', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x INTEGER NOT NULL UNIQUE) STRICT');
    const batcher = new WriteBatcher(db);
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const results = await Promise.allSettled([
      batcher.run(() => insert.run(1)),
      batcher.run(() => {
        insert.run(2);
        insert.run(1); // violates UNIQUE: this write's two inserts must both go
      }),
      batcher.run(() => insert.run(3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 3]);
    db.close();
  });
});

describe('the token cache', () => {
  it('forgets a token rotated by another process (the CLI) at once', () => {
    const file = tempFile();
    const server = createCore({ file });
    const cli = createCore({ file });
    const client = cli.clients.create({ name: 'Shared' });
    expect(server.tokens.resolve(client.admin_token).role).toBe('admin');
    expect(server.tokens.resolve(client.admin_token).role).toBe('admin');
    cli.clients.rotateAdminToken(client.client_id);
    expect(() => server.tokens.resolve(client.admin_token)).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    cli.close();
    server.close();
  });
});
