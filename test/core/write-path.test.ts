import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openCore } from '../support/core.js';
import { openDatabase } from '../../main/core/store/database.js';
import { SYSTEM, WritePath } from '../../main/core/store/write-path.js';

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
    const batcher = new WritePath(db, Date.now);
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const writes = [1, 2, 3].map((x) => batcher.run(SYSTEM, () => insert.run(x).changes));
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
    const batcher = new WritePath(db, Date.now);
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const results = await Promise.allSettled([
      batcher.run(SYSTEM, () => insert.run(1)),
      batcher.run(SYSTEM, () => {
        insert.run(2);
        insert.run(1); // violates UNIQUE: this write's two inserts must both go
      }),
      batcher.run(SYSTEM, () => insert.run(3)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(db.prepare('SELECT x FROM t ORDER BY x').pluck().all()).toEqual([1, 3]);
    db.close();
  });
});

describe('group commit, when things go wrong', () => {
  it('refuses async work, which would escape the transaction after its first await', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x INTEGER) STRICT');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const batcher = new WritePath(db, Date.now);
    await expect(
      batcher.run(SYSTEM, async () => {
        insert.run(7);
        await null;
        insert.run(8);
      }),
    ).rejects.toThrow(/synchronous work only/);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    db.close();
  });

  it('acknowledges nothing, and leaves nothing, when SQLite rolls the batch back midway', async () => {
    const db = openDatabase(':memory:');
    db.exec('CREATE TABLE t (x INTEGER) STRICT');
    const insert = db.prepare('INSERT INTO t VALUES (?)');
    const batcher = new WritePath(db, Date.now);
    const results = await Promise.allSettled([
      batcher.run(SYSTEM, () => insert.run(21)),
      batcher.run(SYSTEM, () => {
        db.exec('ROLLBACK');
        throw new Error('as if the disk were full');
      }),
      batcher.run(SYSTEM, () => insert.run(23)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    db.close();
  });
});

describe('password change races', () => {
  it('a change checked against a password that was changed meanwhile is refused, not applied', async () => {
    const core = openCore({ file: ':memory:' });
    const { client_id } = core.clients.create({ name: 'Race' });
    const { member } = await core.members.register(client_id, { username: 'racer01', pwd: 'first-pwd', email: 'r@example.com' });
    const results = await Promise.allSettled([
      core.members.update(client_id, member.id, { pwd: 'owner-pwd', oldpwd: 'first-pwd' }),
      core.members.update(client_id, member.id, { pwd: 'thief-pwd', oldpwd: 'first-pwd' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const won = results[0]!.status === 'fulfilled' ? 'owner-pwd' : 'thief-pwd';
    await expect(core.members.authenticate(client_id, 'racer01', won)).resolves.toBeTruthy();
    core.close();
  });
});

describe('the token cache', () => {
  it('forgets a token rotated by another process (the CLI) at once', () => {
    const file = tempFile();
    const server = openCore({ file });
    const cli = openCore({ file });
    const client = cli.clients.create({ name: 'Shared' });
    expect(server.tokens.resolve(client.admin_token).role).toBe('admin');
    expect(server.tokens.resolve(client.admin_token).role).toBe('admin');
    cli.clients.rotateAdminToken(client.client_id);
    expect(() => server.tokens.resolve(client.admin_token)).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    cli.close();
    server.close();
  });
});
