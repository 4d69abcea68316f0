import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiChild, type ApiChild } from '../support/api-child-process.js';

/**
 * Heavy near queries and a plain get.json sent to a real listener in a process of its own (so
 * that its event loop is not the test's), over 60,000 POIs packed into a few hundred metres.
 * What is asserted is the order of the answers, not their timing: the get.json must not wait
 * behind every heavy query that arrived before it.
 */
let child: ApiChild;
beforeAll(async () => {
  child = await startApiChild({}, { dense: 60_000 });
}, 60_000);
afterAll(() => {
  child.process.kill('SIGKILL');
});

const get = async (path: string, query: Record<string, string | number>): Promise<{ status: number; body: unknown }> => {
  const r = await fetch(`http://127.0.0.1:${child.port}${path}?${new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]))}`);
  return { status: r.status, body: (await r.json()) as unknown };
};

describe('heavy near queries', () => {
  it('do not hold up a plain get.json sent while they run', async () => {
    const order: string[] = [];
    const heavy = Array.from({ length: 16 }, async (_, i) => {
      const r = await get('/1/pois/get_near.json', { oauth_token: child.admin, lat: 48.85, lng: 2.35, radius: 20_037_509, total: 1000 });
      expect(r.status).toBe(200);
      expect((r.body as unknown[]).length).toBe(1000);
      order.push(`near${i}`);
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const plain = get('/1/pois/get.json', { oauth_token: child.admin, poi: child.poi }).then((r) => {
      expect(r.status).toBe(200);
      order.push('get');
    });
    await Promise.all([...heavy, plain]);
    expect(order.indexOf('get'), `answers in order: ${order.join(' ')}`).toBeLessThan(4);
  }, 60_000);

  it('read a bounded part of the dense area: a world-sized radius answers the nearest 1,000 as a small one does', async () => {
    const world = await get('/1/pois/get_near.json', { oauth_token: child.admin, lat: 48.85, lng: 2.35, radius: 20_037_509, total: 1000 });
    const small = await get('/1/pois/get_near.json', { oauth_token: child.admin, lat: 48.85, lng: 2.35, radius: 300, total: 1000 });
    expect((world.body as Array<{ id: number }>).map((p) => p.id)).toEqual((small.body as Array<{ id: number }>).map((p) => p.id));
  });
});
