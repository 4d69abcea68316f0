import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { PoiReply } from '../../shared/wire.js';
import { invokeApi, openCore } from '../support/core.js';

/**
 * get.json answers from a cache of whole replies (main/core/pois/reply-cache.ts). Every reply it
 * gives must be the one a process without the cache gives at that moment: `fresh` is another
 * core on the same file whose own cache is emptied before each read.
 */
const dir = mkdtempSync(join(tmpdir(), 'poi-reply-cache-'));
const file = join(dir, 'poi.sqlite');
const core = openCore({ file });
const other = openCore({ file });
afterAll(() => {
  core.close();
  other.close();
  rmSync(dir, { recursive: true, force: true });
});
const { client_id: clientId, admin_token: admin } = core.clients.create({ name: 'Cached' });
const { admin_token: otherAdmin } = core.clients.create({ name: 'Elsewhere' });
const category = core.categories.add(clientId, { desc: 'Kiosk' });
const [a, b] = core.pois.addMany(clientId, [
  { name: 'Alpha', lat: 40, lng: -3, categories: [category.Id] },
  { name: 'Beta', lat: 41, lng: -3, categories: [7] },
]) as [number, number];

const get = (id: number, token = admin) => invokeApi(core, 'pois.get', { accessToken: token }, { poi: id }) as Promise<PoiReply>;
const fresh = (id: number): Promise<PoiReply> => {
  other.replyCache.clear();
  return invokeApi(other, 'pois.get', { accessToken: admin }, { poi: id }) as Promise<PoiReply>;
};
const expectFresh = async (id: number, why: string) => expect(await get(id), why).toEqual(await fresh(id));

describe('the reply cache of get.json', () => {
  it('stores a POI once it has been asked twice, then answers it from the cache with the same reply', async () => {
    const first = await get(a);
    const { hits, misses } = core.replyCache;
    expect(await get(a)).toEqual(first);
    expect(core.replyCache.hits - hits, 'the second ask is built afresh: the first stored nothing').toBe(0);
    expect(await get(a)).toEqual(first);
    expect(core.replyCache.hits - hits).toBe(1);
    expect(core.replyCache.misses - misses).toBe(1);
    // Shared, not frozen: freezing every reply cost more than a hit saves (reply-cache.ts).
    expect(Object.isFrozen(await get(a))).toBe(false);
  });

  it('stores nothing of a walk through every id, asked in turn again and again', async () => {
    const walk = openCore({ file: ':memory:' });
    try {
      const { client_id: id, admin_token: token } = walk.clients.create({ name: 'Walked' });
      const ids = walk.pois.addMany(id, Array.from({ length: 20_000 }, (_, i) => ({ name: `P${i}`, lat: 40 + i / 1e5, lng: -3, categories: [7] }))) as number[];
      for (let round = 0; round < 2; round++) for (const poi of ids) await invokeApi(walk, 'pois.get', { accessToken: token }, { poi });
      expect(ids.filter((poi) => walk.replyCache.stored(poi) !== undefined)).toEqual([]);
      // The last id, asked again at once: it was not stored either (this ask stores it).
      await invokeApi(walk, 'pois.get', { accessToken: token }, { poi: ids[ids.length - 1]! });
      expect(walk.replyCache.hits).toBe(0);
    } finally {
      walk.close();
    }
  });

  it('keeps a POI\'s reply when another POI is written by another process', async () => {
    await get(a);
    await get(a);
    await other.console['pois.update']({ clientId, fields: { poi: b, name: 'Beta (elsewhere)' } });
    const { hits } = core.replyCache;
    await get(a);
    expect(core.replyCache.hits - hits).toBe(1);
    await expectFresh(b, 'the POI written');
  });

  it('never answers another client with a cached POI', async () => {
    await get(a);
    await expect(get(a, otherAdmin)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('is never stale after writes from this process, another process, or plain SQL', async () => {
    for (const id of [a, a, b, b]) await get(id);
    await core.console['pois.update']({ clientId, fields: { poi: a, name: 'Alpha (here)' } });
    await expectFresh(a, 'after an update in this process');
    expect((await get(a)).name).toBe('Alpha (here)');

    await get(a);
    await other.console['pois.update']({ clientId, fields: { poi: a, phone: '+34 600' } });
    await expectFresh(a, 'after an update by another process');

    await get(b);
    await invokeApi(other, 'warnings.add', { accessToken: admin }, { poi: b, type: 'CLOSED' });
    await expectFresh(b, 'after a report on it');
    expect((await get(b)).warnings.closed).toBe(1);

    await get(a);
    await core.console['categories.update']({ clientId, category: category.Id, desc: 'Newsstand' });
    await expectFresh(a, 'after a rename of its category');
    expect((await get(a)).categories.map((c) => c.Description)).toEqual(['Newsstand']);

    await get(a);
    other.db.prepare('UPDATE pois SET name = ? WHERE id = ?').run('Alpha (SQL)', a);
    await expectFresh(a, 'after a plain SQL update by another connection');

    // A sync that only moves updated_at writes no row of the log: the POI's own clock tells.
    await get(a);
    other.db.prepare('UPDATE pois SET updated_at = updated_at + 5 WHERE id = ?').run(a);
    await expectFresh(a, 'after a change of updated_at alone');

    await get(b);
    await other.console['pois.delete']({ clientId, poi: b });
    await expect(get(b)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('forgets everything when a backup is restored', async () => {
    await get(a);
    const backup = await core.backups.create('manual');
    await core.console['pois.update']({ clientId, fields: { poi: a, name: 'After the backup' } });
    expect((await get(a)).name).toBe('After the backup');
    await core.backups.restore(core.backups.pathOf(backup.name));
    expect((await get(a)).name).not.toBe('After the backup');
    await expectFresh(a, 'after a restore');
  });

  it('forgets everything when another process restores a backup, even once the log has grown back to where it was', async () => {
    const backup = await other.backups.create('manual');
    await core.console['pois.update']({ clientId, fields: { poi: a, name: 'Before the restore elsewhere' } });
    expect((await get(a)).name).toBe('Before the restore elsewhere');
    await other.backups.restore(other.backups.pathOf(backup.name));
    // One write after the restore: the log's last number is again the one the cache last saw.
    await other.console['pois.update']({ clientId, fields: { poi: a, phone: '+34 700' } });
    await expectFresh(a, 'after a restore by another process and one write');
    expect((await get(a)).name).not.toBe('Before the restore elsewhere');
  });
});
