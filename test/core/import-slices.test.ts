import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { IMPORT_SLICE_BYTES } from '../../shared/import-limits.js';
import { testCore } from '../support/core.js';
import { longestHold } from '../support/loop-hold.js';

/**
 * A whole file handed over as one Buffer (as a caller of importPois may) is parsed a slice a
 * turn, not in one stretch: the event loop stays free for the requests meanwhile.
 */
describe('an import given its file as one chunk', () => {
  it('never holds the event loop for the whole parse', async () => {
    const core = testCore();
    try {
      const client = core.clients.create({ name: 'c' }).client_id;
      const rows = Array.from({ length: 30_000 }, (_, i) => `Place ${i},${(40 + (i % 1000) / 1000).toFixed(4)},${(-3 - Math.floor(i / 1000) / 100).toFixed(4)},1,A description long enough to make the file big`);
      const file = Buffer.from(`name,lat,lng,categories,description\n${rows.join('\n')}\n`);
      expect(file.length).toBeGreaterThan(100 * IMPORT_SLICE_BYTES);
      // The longest hold of the event loop while the check runs (it parses and checks every row, and writes none).
      const { value: report, longestMs: longest } = await longestHold(() => core.importPois(client, Readable.from([file]), 'csv', { dryRun: true }));
      expect(report).toMatchObject({ rows: 30_000, refused: [] });
      // Parsed in one stretch, these 2.3 MB held it for 1.8 s on this machine.
      expect(longest).toBeLessThan(150);
    } finally {
      core.close();
    }
  });
});
