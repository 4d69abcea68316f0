import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiChild, type ApiChild } from '../support/api-child-process.js';

/**
 * Heavy near queries and a plain get.json sent to a real listener in a process of its own (so
 * that its event loop is not the test's), over 60,000 POIs packed into a few hundred metres.
 * What is asserted is the order of the answers, not their timing: the get.json must not wait
 * behind every heavy query that arrived before it. (That each query reads a bounded part of the
 * area is tested on the core, where rows can be counted: test/core/nearest.test.ts.)
 */
let child: ApiChild;
beforeAll(async () => {
  child = await startApiChild({}, { dense: 60_000 });
}, 60_000);
afterAll(() => {
  child.process.kill('SIGKILL');
});

const url = (path: string, query: Record<string, string | number>): string =>
  `http://127.0.0.1:${child.port}${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`;

describe('heavy near queries', () => {
  it('do not hold up a plain get.json sent while they run', async () => {
    const heavyCount = 24;
    let answered = 0;
    let firstAnswered!: () => void;
    const first = new Promise<void>((resolve) => (firstAnswered = resolve));
    // Counted when their headers arrive: the server's order, not this process's JSON parsing.
    const heavy = Array.from({ length: heavyCount }, async () => {
      const r = await fetch(url('/1/pois/get_near.json', { oauth_token: child.admin, lat: 48.85, lng: 2.35, radius: 20_037_509, total: 1000 }));
      answered += 1;
      firstAnswered();
      expect(r.status).toBe(200);
      expect(((await r.json()) as unknown[]).length).toBe(1000);
    });
    // Once one heavy query is answered, the others have long arrived and wait their turn.
    await first;
    const pendingWhenSent = heavyCount - answered;
    const plain = fetch(url('/1/pois/get.json', { oauth_token: child.admin, poi: child.poi })).then(async (r) => {
      const meanwhile = answered - (heavyCount - pendingWhenSent);
      expect(r.status).toBe(200);
      await r.text();
      return meanwhile;
    });
    const [meanwhile] = await Promise.all([plain, ...heavy]);
    // Without a fair turn, every heavy query still waiting is answered before the get.json.
    expect(pendingWhenSent, 'heavy queries still waiting when the get.json was sent').toBeGreaterThanOrEqual(8);
    expect(meanwhile, `heavy queries answered while the get.json waited (of ${pendingWhenSent} waiting)`).toBeLessThanOrEqual(2);
  }, 60_000);

});
