import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { importWriter } from '../../main/core/imports/import-writer.js';
import { importPois } from '../../main/core/imports/poi-import.js';
import { LongWrite } from '../../main/core/store/long-write.js';
import { CONSOLE } from '../../main/core/store/write-path.js';
import { fileCores } from '../support/file-cores.js';
import type { OpenCore } from '../support/core.js';

/**
 * An import's writes on a connection of their own, in one transaction held across turns
 * (main/core/store/long-write.ts), on a real SQLite file: unseen until committed, committed
 * before any write of the main path (which would otherwise wait on it with the event loop held,
 * for ever), and nothing lost or doubled when imports and other writes interleave.
 */
const root = join(import.meta.dirname, '..', '..');
const { fileCore, release } = fileCores('poi-long-write-');

const place = (i: number) => ({ name: `Place ${i}`, lat: 40 + (i % 300) * 0.001, lng: -3.7 - Math.floor(i / 300) * 0.001, categories: [] as number[] });
const countOf = (core: OpenCore, clientId: string): number => core.db.prepare<[string], number>('SELECT count(*) FROM pois WHERE client_id = ?').pluck().get(clientId)!;

function csv(rows: number, from = 0): Readable {
  const lines = ['name,lat,lng,category_names'];
  for (let i = from; i < from + rows; i++) lines.push(`Imported ${i},${(41 + (i % 300) * 0.001).toFixed(4)},${(2 + Math.floor(i / 300) * 0.001).toFixed(4)},Imported`);
  return Readable.from([`${lines.join('\n')}\n`]);
}

describe('a long writer beside the main write path', () => {
  it('keeps its rows out of sight until it commits, and commits before the main path begins a write, which does not wait on it', async () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Lane' }).client_id;
    const writer = importWriter(core);
    try {
      writer.addMany(clientId, [place(1), place(2), place(3)], { kind: 'import', id: 'a' });
      expect(countOf(core, clientId)).toBe(0);
      expect(writer.store.markers(clientId, { south: 39, west: -5, north: 41, east: -3 }, 10).length).toBe(3);

      // Without giving way, this BEGIN IMMEDIATE waits out the 5 s busy timeout and fails.
      const t0 = performance.now();
      core.writes.now(CONSOLE, () => core.categories.add(clientId, { desc: 'Meanwhile' }, CONSOLE));
      expect(performance.now() - t0).toBeLessThan(1_000);
      expect(countOf(core, clientId)).toBe(3);

      // The group-commit path gives way too.
      writer.addMany(clientId, [place(4)], { kind: 'import', id: 'a' });
      await core.pois.add(clientId, null, place(5));
      expect(countOf(core, clientId)).toBe(5);
    } finally {
      writer.close();
    }
  });

  it('commits once its transaction is due, and rolls back on close what it had not committed', async () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Due' }).client_id;
    const side = core.sideConnection!();
    const long = new LongWrite(side, core.writes, Date.now, 50);
    const insert = side.prepare("INSERT INTO categories (uuid, client_id, description, created_at, updated_at) VALUES (lower(hex(randomblob(16))), ?, ?, 0, 0)");
    try {
      long.run(CONSOLE, () => insert.run(clientId, 'first'));
      long.commitIfDue();
      const own = core.db.prepare<[string], number>('SELECT count(*) FROM categories WHERE client_id = ?').pluck();
      expect(own.get(clientId)).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 60));
      long.commitIfDue();
      expect(own.get(clientId)).toBe(1);
      long.run(CONSOLE, () => insert.run(clientId, 'second'));
    } finally {
      long.close();
    }
    expect(core.db.prepare<[string], number>('SELECT count(*) FROM categories WHERE client_id = ?').pluck().get(clientId)).toBe(1);
    // Given back: the main path no longer asks it to commit.
    core.writes.now(CONSOLE, () => core.categories.add(clientId, { desc: 'After' }, CONSOLE));
  });

  it('an import into a file commits a few big transactions, not one per batch', async () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Big' }).client_id;
    const before = core.stamp.commits();
    const report = await importPois(core, clientId, csv(4_000), 'csv', { createCategories: true });
    expect(report.added).toBe(4_000);
    expect(countOf(core, clientId)).toBe(4_000);
    const after = core.stamp.commits();
    if (before === undefined || after === undefined) throw new Error('a file in WAL mode has a commit counter');
    // One transaction per batch of ~4 ms made hundreds here; now one a second, and the last.
    expect(after - before).toBeLessThan(20);
  });

  it('another process writing meanwhile waits its turn and loses nothing; the import loses nothing either', async () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Two processes' }).client_id;
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/poi-writer-child.ts', core.db.name, clientId, '300'], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    const ready = new Promise<void>((resolve) => child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()).startsWith('ready\n') && resolve()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await ready;
      const importing = importPois(core, clientId, csv(20_000), 'csv', {
        createCategories: true,
        // Once the import's first transaction is open, the other process starts writing.
        onProgress: (rows) => {
          if (rows > 0 && !child.stdin.writableEnded) child.stdin.end('go\n');
        },
      });
      const report = await importing;
      expect(report.added).toBe(20_000);
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    expect(out).toBe('ready\n300\n');
    const names = core.db.prepare<[string], string>('SELECT name FROM pois WHERE client_id = ?').pluck().all(clientId);
    expect(names.length).toBe(20_300);
    expect(new Set(names).size).toBe(20_300);
  }, 120_000);

  it('two imports into two clients at once both go in, neither waiting on the other', async () => {
    const core = fileCore();
    const a = core.clients.create({ name: 'A' }).client_id;
    const b = core.clients.create({ name: 'B' }).client_id;
    const t0 = performance.now();
    const [ra, rb] = await Promise.all([importPois(core, a, csv(5_000), 'csv', { createCategories: true }), importPois(core, b, csv(5_000), 'csv', { createCategories: true })]);
    // Before each BEGIN made way for the other, one waited out the 5 s busy timeout and failed.
    expect([ra.failed, rb.failed]).toEqual([null, null]);
    expect([countOf(core, a), countOf(core, b)]).toEqual([5_000, 5_000]);
    expect(performance.now() - t0).toBeLessThan(4_500);
  }, 60_000);

  it("a sync's own bookkeeping written during an import does not wait on it", () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Syncing' }).client_id;
    const writer = importWriter(core);
    try {
      writer.addMany(clientId, [place(1)], { kind: 'import', id: 'a' });
      const t0 = performance.now();
      core.sync.state.write({ lastSync: 1 });
      core.sync.refused.keep(clientId, [{ op: '00000000-0000-4000-8000-000000000001', entity: 'poi', uuid: '00000000-0000-4000-8000-000000000002', status: 409, field: 'name', message: 'refused' }]);
      core.sync.refused.accepted('poi', '00000000-0000-4000-8000-000000000002');
      expect(performance.now() - t0).toBeLessThan(1_000);
      expect(core.sync.state.read().lastSync).toBe(1);
    } finally {
      writer.close();
    }
  });

  it('a row naming, by id, a POI the same import added updates it', async () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Renamed' }).client_id;
    const rows = ['id,name,lat,lng,category_names'];
    for (let i = 0; i < 150; i++) rows.push(`,Place ${i},41.${String(i).padStart(3, '0')},2,Imported`);
    const firstId = (core.db.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get('pois') as number | undefined ?? 0) + 1;
    rows.push(`${firstId},Renamed first,41,2,Imported`);
    const report = await importPois(core, clientId, Readable.from([`${rows.join('\n')}\n`]), 'csv', { createCategories: true });
    expect(report.failed).toBeNull();
    expect([report.added, report.updated]).toEqual([150, 1]);
    expect(core.db.prepare('SELECT name FROM pois WHERE id = ?').pluck().get(firstId)).toBe('Renamed first');
  });

  it('a backup taken while a long writer commits at every turn ends: the writer waits for it', async () => {
    const core = fileCore();
    const clientId = core.clients.create({ name: 'Backed up' }).client_id;
    core.pois.addMany(clientId, Array.from({ length: 5_000 }, (_, i) => place(i)));
    // An import commits every second; this writer at every turn, so that a small file shows it.
    const side = core.sideConnection!();
    const long = new LongWrite(side, core.writes, Date.now, 0);
    const insert = side.prepare("INSERT INTO categories (uuid, client_id, description, created_at, updated_at) VALUES (lower(hex(randomblob(16))), ?, ?, 0, 0)");
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) {
        await long.mayGo();
        long.run(CONSOLE, () => insert.run(clientId, `Written ${written++}`));
        long.commitIfDue();
        await new Promise((resolve) => setImmediate(resolve));
      }
      long.commit();
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      // The online backup starts over at each commit of another connection: before long writers
      // paused for it, it never ended while this one wrote.
      const ended = await Promise.race([core.backups.create('manual').then(() => 'backup'), new Promise((resolve) => setTimeout(resolve, 5_000, 'writer still writing'))]);
      expect(ended).toBe('backup');
    } finally {
      writing = false;
      await writer;
      long.close();
    }
    expect(core.db.prepare("SELECT count(*) FROM categories WHERE description LIKE 'Written %'").pluck().get()).toBe(written);
  }, 60_000);

  it('loses and doubles nothing when imports, their cancels and other writes interleave (random histories)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 50, max: 1_500 }),
        fc.array(fc.integer({ min: 0, max: 1_500 }), { maxLength: 12 }),
        fc.option(fc.integer({ min: 0, max: 1_500 }), { nil: undefined }),
        async (rows, writesAt, cancelAt) => {
          const core = fileCore();
          const clientId = core.clients.create({ name: 'Mixed' }).client_id;
          const controller = new AbortController();
          const acknowledged: Array<Promise<unknown>> = [];
          let written = 0;
          const due = [...writesAt].sort((a, b) => a - b);
          const report = await importPois(core, clientId, csv(rows), 'csv', {
            createCategories: true,
            signal: controller.signal,
            onProgress: (read) => {
              // Other writes made while the import's transaction is open: group-committed, and at once.
              while (due.length > 0 && due[0]! <= read) {
                due.shift();
                const i = written++;
                acknowledged.push(core.pois.add(clientId, null, place(i)));
                core.writes.now(CONSOLE, () => core.categories.add(clientId, { desc: `Now ${i}` }, CONSOLE));
              }
              if (cancelAt !== undefined && read >= cancelAt) controller.abort();
            },
          });
          await Promise.all(acknowledged);
          const names = core.db.prepare<[string], string>('SELECT name FROM pois WHERE client_id = ?').pluck().all(clientId);
          expect(new Set(names).size).toBe(names.length);
          const imported = names.filter((n) => n.startsWith('Imported ')).length;
          expect(imported).toBe(report.cancelled ? 0 : rows);
          expect(names.length - imported).toBe(written);
          expect(core.db.prepare<[string], number>("SELECT count(*) FROM categories WHERE client_id = ? AND description LIKE 'Now %'").pluck().get(clientId)).toBe(written);
          release(core);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);
});
