import { afterAll, describe, expect, it } from 'vitest';
import { testCore } from '../support/core.js';

const core = testCore();
const { client_id: clientId } = core.clients.create({ name: 'Pages' });
afterAll(() => core.close());

describe('a search list in pages', () => {
  it('says how many match in all, and pages through every one of them in id order', async () => {
    for (let i = 0; i < 120; i++) await core.console['pois.add']({ clientId, fields: { lat: 40 + i / 1e4, lng: -3, name: `Paged ${i}`, categories: [i % 2 ? 7 : 3] } });
    await core.console['pois.add']({ clientId, fields: { lat: 41, lng: -3, name: 'Other', categories: [7] } });
    const seen: number[] = [];
    let after: number | undefined;
    for (const expected of [50, 50, 20, 0]) {
      const page = (await core.console['pois.searchPage']({ clientId, q: 'paged', limit: 50, ...(after ? { after } : {}) })) as { total: number; pois: Array<{ id: number }> };
      expect(page.total).toBe(120);
      expect(page.pois).toHaveLength(expected);
      seen.push(...page.pois.map((p) => p.id));
      after = page.pois.at(-1)?.id ?? after;
    }
    expect(new Set(seen).size).toBe(120);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    const filtered = (await core.console['pois.searchPage']({ clientId, q: 'paged', categories: [7], limit: 100 })) as { total: number; pois: unknown[] };
    expect(filtered.total).toBe(60);
    expect(filtered.pois).toHaveLength(60);
  });
});
