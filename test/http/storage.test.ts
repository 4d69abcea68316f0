import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { poiFixture, type Fixture } from '../support/fixture.js';

/**
 * A disk that really fills up: a 3 MiB tmpfs mounted for the test (root only). Where mounting is
 * not allowed, SQLite's own page limit (`max_page_count`) makes the database "full" the same way
 * (SQLITE_FULL), and the test says which it used.
 */
const mountPoint = mkdtempSync(join(tmpdir(), 'poi-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=3m,mode=0700', 'tmpfs', mountPoint], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.log('storage test: cannot mount a tmpfs here (not root?), so the database is filled with PRAGMA max_page_count instead');
}

let f: Fixture;
const ballast = join(mountPoint, 'ballast');

beforeAll(async () => {
  f = await poiFixture({ file: join(mountPoint, 'poi.sqlite') });
  if (mounted) {
    // Leave the database about 400 KiB to grow into.
    const { size, used } = diskUse();
    writeFileSync(ballast, Buffer.alloc(Math.max(0, size - used - 400 * 1024)));
  } else {
    f.t.core.db.pragma(`max_page_count = ${Number(f.t.core.db.pragma('page_count', { simple: true })) + 100}`);
  }
});

afterAll(async () => {
  await f.t.close();
  if (mounted) execFileSync('umount', [mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
});

function diskUse(): { size: number; used: number } {
  const [, size, used] = execFileSync('df', ['-B1', '--output=source,size,used', mountPoint], { encoding: 'utf8' }).trim().split('\n')[1]!.trim().split(/\s+/);
  return { size: Number(size), used: Number(used) };
}

describe('a full disk', () => {
  it('is answered 503 EXCEPTION_STORAGE_FULL, keeps reads working, loses no acknowledged write, and recovers when space is freed', async () => {
    const first = await f.addPoi({ name: 'Before the disk filled' });
    const errors: Error[] = [];
    f.t.server.on('error', (e) => errors.push(e));
    const acknowledged: number[] = [first.id as number];
    let refusal: Record<string, unknown> | undefined;
    const big = 'x'.repeat(1000);
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
    if (mounted) rmSync(ballast);
    else f.t.core.db.pragma('max_page_count = 1073741823');
    expect((await f.t.get('/1/pois/add.json', { oauth_token: f.admin, lat: 40, lng: -3, name: 'After', categories: 1 })).status).toBe(200);
  }, 60_000);
});
