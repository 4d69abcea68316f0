import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { writeMbtiles } from '../../main/build/map-package-writer.js';
import { MbtilesArchive } from '../../main/core/maps/mbtiles.js';
import { MAX_INFLATED_TILE_BYTES } from '../../shared/maps.js';

/**
 * A tile of a stranger's package that inflates to tens of MiB is inflated on the thread pool:
 * the map's tile route and the street geocoder read tiles while the app serves, and the event
 * loop keeps turning meanwhile.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('a gzipped tile that inflates to tens of MiB', () => {
  it('is inflated while the event loop turns, and one past the limit is refused in words', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-inflate-'));
    dirs.push(dir);
    const file = join(dir, 'bomb.mbtiles');
    // A vector tile's first byte, then zeros: 30 MiB inflated from about 30 KiB.
    const inflatedBytes = Buffer.alloc(30 * 1024 ** 2);
    inflatedBytes[0] = 0x1a;
    const over = Buffer.alloc(MAX_INFLATED_TILE_BYTES + 1024);
    writeMbtiles(file, {
      format: 'pbf',
      name: 'bomb',
      vectorLayers: ['roads'],
      tiles: [
        { z: 14, x: 1, y: 1, data: gzipSync(inflatedBytes) },
        { z: 14, x: 1, y: 2, data: gzipSync(over) },
      ],
    });
    const archive = new MbtilesArchive(file);
    try {
      let turns = 0;
      let ticking = true;
      const tick = (): void => {
        turns += 1;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      const tile = await archive.tile(14, 1, 1);
      ticking = false;
      expect(tile?.length).toBe(inflatedBytes.length);
      // Inflated on the event loop, the tile came back before any other turn (0).
      expect(turns).toBeGreaterThan(0);
      await expect(archive.tile(14, 1, 2)).rejects.toThrow('a tile inflates to more than 32 MiB, the most a tile may hold');
    } finally {
      archive.close();
    }
  });
});
