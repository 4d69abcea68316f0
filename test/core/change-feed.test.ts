import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openCore, testCore } from '../support/core.js';

/**
 * What the caches of get.json drop after a write (main/core/pois/change-feed.ts): the POIs a
 * write names, or everything when the write is about something else that replies or
 * credentials depend on, or when the log cannot say what changed.
 */
describe('the change feed of the caches', () => {
  const core = testCore();
  const { client_id: clientId } = core.clients.create({ name: 'Fed' });
  const [a, b] = core.pois.addMany(clientId, [
    { name: 'A', lat: 40, lng: -3, categories: [7] },
    { name: 'B', lat: 41, lng: -3, categories: [7] },
  ]) as [number, number];
  const feed = core.poiFeed.reader(() => core.stamp.counted(), () => core.stamp.commits());
  feed.poll();

  it('names nothing while nothing was committed, then the POIs each write touched', async () => {
    expect(feed.poll()).toBeUndefined();
    await core.console['pois.update']({ clientId, fields: { poi: a, name: 'A2' } });
    await core.console['pois.update']({ clientId, fields: { poi: b, name: 'B2' } });
    expect(feed.poll()).toEqual([a, b]);
    expect(feed.poll()).toBeUndefined();
  });

  it('drops nothing for a token issued, everything for one revoked', () => {
    const token = core.tokens.issue(clientId, 'admin', null, null);
    expect(feed.poll()).toEqual([]);
    core.tokens.revokeToken(token);
    expect(feed.poll()).toBe('all');
  });

  it('drops everything for a category renamed, a write by sync, and a write the log leaves out', async () => {
    const category = core.categories.add(clientId, { desc: 'Kiosk' });
    expect(feed.poll(), 'a category created is in no reply').toEqual([]);
    await core.console['categories.update']({ clientId, category: category.Id, desc: 'Newsstand' });
    expect(feed.poll()).toBe('all');
    core.writes.now({ kind: 'sync' }, () => core.db.prepare('UPDATE pois SET name = ? WHERE id = ?').run('By sync', a));
    expect(feed.poll()).toBe('all');
    core.db.prepare('UPDATE pois SET registered_at = registered_at + 1 WHERE id = ?').run(b);
    expect(feed.poll()).toBe('all');
  });

  it('drops everything past a thousand rows, and after a restore by this process', async () => {
    core.pois.addMany(clientId, Array.from({ length: 1_001 }, (_, i) => ({ name: `P${i}`, lat: 40, lng: -3, categories: [7] })));
    expect(feed.poll()).toBe('all');
    await core.console['pois.update']({ clientId, fields: { poi: a, name: 'A3' } });
    expect(feed.poll()).toEqual([a]);
    core.poiFeed.forget();
    expect(feed.poll()).toBe('all');
  });
});

describe('the change feed over a file, paced by the -shm header', () => {
  it('drops nothing when a checkpoint starts the WAL over, and everything for a commit the log leaves out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-change-feed-'));
    const core = openCore({ file: join(dir, 'poi.sqlite') });
    const other = openCore({ file: join(dir, 'poi.sqlite') });
    try {
      const { client_id: clientId } = core.clients.create({ name: 'Filed' });
      const [a] = core.pois.addMany(clientId, [{ name: 'A', lat: 40, lng: -3, categories: [7] }]) as [number];
      const feed = core.poiChanges();
      feed.poll();
      other.pois.addMany(clientId, [{ name: 'B', lat: 41, lng: -3, categories: [7] }]);
      expect(feed.poll()).toHaveLength(1);
      const before = core.stamp.read();
      other.db.pragma('wal_checkpoint(TRUNCATE)');
      expect(core.stamp.read(), 'the header was rewritten').not.toBe(before);
      expect(feed.poll(), 'a WAL started over').toEqual([]);
      other.db.prepare('UPDATE pois SET updated_at = updated_at + 1 WHERE id = ?').run(a);
      expect(feed.poll()).toBe('all');
    } finally {
      core.close();
      other.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
