import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { storageError } from '../../main/core/errors.js';
import { poiFixture, type Fixture } from '../support/fixture.js';

/**
 * A disk that really fills up: a small tmpfs mounted for each test (root only). Where mounting
 * is not allowed, SQLite's own page limit (`max_page_count`) makes the database "full" the same
 * way (SQLITE_FULL), and the test says which it used.
 */
interface FullDisk {
  f: Fixture;
  /** Makes room again. */
  free(): void;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function diskUse(mountPoint: string): { size: number; used: number } {
  const [, size, used] = execFileSync('df', ['-B1', '--output=source,size,used', mountPoint], { encoding: 'utf8' }).trim().split('\n')[1]!.trim().split(/\s+/);
  return { size: Number(size), used: Number(used) };
}

/** A listener over a database on a disk with about `roomKiB` left. */
async function fullDisk(roomKiB: number): Promise<FullDisk> {
  const mountPoint = mkdtempSync(join(tmpdir(), 'poi-full-'));
  let mounted = false;
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
    mounted = true;
  } catch {
    console.log('storage test: cannot mount a tmpfs here (not root?), so the database is filled with PRAGMA max_page_count instead');
  }
  const f = await poiFixture({ file: join(mountPoint, 'poi.sqlite') });
  cleanups.push(async () => {
    await f.t.close();
    if (mounted) execFileSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });
  const ballast = join(mountPoint, 'ballast');
  if (mounted) {
    const { size, used } = diskUse(mountPoint);
    writeFileSync(ballast, Buffer.alloc(Math.max(0, size - used - roomKiB * 1024)));
  } else {
    f.t.core.db.pragma(`max_page_count = ${Number(f.t.core.db.pragma('page_count', { simple: true })) + roomKiB / 4}`);
  }
  return {
    f,
    free: () => (mounted ? rmSync(ballast) : void f.t.core.db.pragma('max_page_count = 1073741823')),
  };
}

const big = 'x'.repeat(1000);

describe('a full disk', () => {
  it('is answered 503 EXCEPTION_STORAGE_FULL, keeps reads working, loses no acknowledged write, and recovers when space is freed', async () => {
    const { f, free } = await fullDisk(400);
    const first = await f.addPoi({ name: 'Before the disk filled' });
    const errors: Error[] = [];
    f.t.server.on('error', (e) => errors.push(e));
    const acknowledged: number[] = [first.id as number];
    let refusal: Record<string, unknown> | undefined;
    for (let i = 0; i < 5000 && !refusal; i++) {
      const batch = await Promise.all(
        Array.from({ length: 20 }, () => f.t.get('/1/pois/add.json', { oauth_token: f.admin, lat: 40, lng: -3, name: `Filler ${i}`, categories: 1, desc: big, address: big.slice(0, 255) })),
      );
      for (const r of batch) {
        if (r.status === 200) acknowledged.push(r.json['id'] as number);
        else refusal ??= { status: r.status, ...r.json };
      }
    }
    expect(refusal).toMatchObject({ status: 503, code: 503, description: 'EXCEPTION_STORAGE_FULL' });
    expect(errors.length).toBeGreaterThan(0);
    // Reads go on.
    expect((await f.t.get('/1/pois/get.json', { oauth_token: f.member, poi: first.id as number })).json).toMatchObject({ name: 'Before the disk filled' });
    expect((await f.t.get('/1/pois/get_where.json', { oauth_token: f.member, q: 'before' })).status).toBe(200);
    // Every acknowledged add is there, and nothing else.
    const stored = f.t.core.db.prepare('SELECT id FROM pois ORDER BY id').pluck().all() as number[];
    expect(stored).toEqual([...acknowledged].sort((a, b) => a - b));
    expect(f.t.core.db.pragma('quick_check', { simple: true })).toBe('ok');
    // Space again: writes work again, without a restart.
    free();
    expect((await f.t.get('/1/pois/add.json', { oauth_token: f.admin, lat: 40, lng: -3, name: 'After', categories: 1 })).status).toBe(200);
  }, 60_000);

  it('is answered the same when SQLite rolls a whole batch of writes back (a small page cache spilling to a full disk)', async () => {
    const { f } = await fullDisk(600);
    // A small page cache spills to the WAL in the middle of a group commit; when the spill fails,
    // SQLite rolls the whole transaction back. 100 adds queued in one turn share one batch.
    f.t.core.db.pragma('cache_size = 20');
    const answers = new Map<string, number>();
    for (let round = 0; round < 200; round++) {
      const batch = await Promise.allSettled(
        Array.from({ length: 100 }, (_, i) => f.t.core.pois.add(f.t.core.clients.list()[0]!.client_id, null, { lat: 40, lng: -3, name: `n${round}-${i}`, categories: [1], desc: big, address: big.slice(0, 255) })),
      );
      for (const r of batch) {
        // The transports answer what storageError makes of a failure (HTTP and console alike).
        const key = r.status === 'fulfilled' ? 'ok' : (storageError(r.reason)?.toBody().description ?? `500: ${(r.reason as Error).message}`);
        answers.set(key, (answers.get(key) ?? 0) + 1);
      }
      if (batch.some((r) => r.status === 'rejected')) break;
    }
    const refusals = Object.keys(Object.fromEntries(answers)).filter((k) => k !== 'ok');
    expect(refusals, JSON.stringify(Object.fromEntries(answers))).toEqual(['EXCEPTION_STORAGE_FULL']);
  }, 60_000);
});
