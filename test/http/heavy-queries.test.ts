import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiChild, type ApiChild } from '../support/api-child-process.js';
import { poiFixture } from '../support/fixture.js';

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
    // Counted on the server's clock (test/support/api-child.ts prints when it answers each
    // request; this process shares the wall clock): the heavy queries answered between the
    // moment the get.json is sent and the moment it is answered. A run where the get.json was
    // sent after most heavy queries were done says nothing, and is tried again.
    for (let attempt = 1; ; attempt++) {
      const before = child.answered().length;
      let firstAnswered!: () => void;
      const first = new Promise<void>((resolve) => (firstAnswered = resolve));
      const heavy = Array.from({ length: 24 }, async () => {
        const r = await fetch(url('/1/pois/get_near.json', { oauth_token: child.admin, lat: 48.85, lng: 2.35, radius: 20_037_509, total: 1000 }));
        firstAnswered();
        expect(r.status).toBe(200);
        expect(((await r.json()) as unknown[]).length).toBe(1000);
      });
      // A connection opened, accepted and used once beforehand (keep-alive), so that the
      // request's bytes reach the server's socket at the moment noted as `sent`, however busy
      // this process is (fetch would connect and write turns later).
      const socket = connect({ host: '127.0.0.1', port: child.port });
      let reply = '';
      socket.on('data', (chunk: Buffer) => (reply += chunk.toString()));
      const answers = (n: number) =>
        new Promise<void>((resolve) => {
          const check = (): void => {
            if ((reply.match(/HTTP\/1\.1 /g) ?? []).length >= n && reply.endsWith('}')) {
              socket.off('data', check);
              resolve();
            }
          };
          socket.on('data', check);
          check();
        });
      const request = `GET /1/pois/get.json?oauth_token=${child.admin}&poi=${child.poi} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
      socket.write(request);
      await answers(1);
      await first;
      const sent = Date.now();
      socket.write(request);
      await answers(2);
      socket.destroy();
      expect(reply.match(/HTTP\/1\.1 200 /g)).toHaveLength(2);
      await Promise.all(heavy);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const run = child.answered().slice(before);
      const get = run.filter((a) => a.path.endsWith('/get.json')).at(-1)!;
      const near = run.filter((a) => a.path.endsWith('/get_near.json'));
      const waiting = near.filter((a) => a.end > sent).length;
      const meanwhile = near.filter((a) => a.end > sent && a.end < get.end).length;
      if (waiting < 8 && attempt < 3) continue;
      expect(waiting, 'heavy queries not yet answered when the get.json was sent').toBeGreaterThanOrEqual(8);
      // Without a fair turn, every heavy query still waiting is answered before the get.json.
      expect(meanwhile, `heavy queries answered while the get.json waited (of ${waiting} waiting)`).toBeLessThanOrEqual(2);
      return;
    }
  }, 120_000);

});

describe('a text search walked in slices', () => {
  it('lets a near query sent during its scan be answered before the scan ends', async () => {
    // In this process: the store is within reach, to see the scan under way before the near query
    // is sent. 4,000 POIs in slices of 10 ids: 400 turns of the lane for the search.
    const f = await poiFixture({ scanSlice: 10 });
    try {
      const clientId = f.t.core.tokens.resolve(f.admin).clientId;
      f.t.core.pois.addMany(clientId, Array.from({ length: 4000 }, (_, i) => ({ name: `Item ${i}`, lat: 48.85 + i / 1e5, lng: 2.35, categories: [1] })));
      let slices = 0;
      const where = f.t.core.store.where.bind(f.t.core.store);
      f.t.core.store.where = (...args) => ((slices += 1), where(...args));
      const order: string[] = [];
      const search = f.t.get('/1/pois/get_where.json', { oauth_token: f.admin, q: 'no such name' }).then((r) => {
        expect(r.status).toBe(200);
        order.push('search');
      });
      while (slices < 3) await new Promise((resolve) => setImmediate(resolve));
      const near = f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, lat: 48.85, lng: 2.35, radius: 100, total: 5 }).then((r) => {
        expect(r.status).toBe(200);
        order.push(`near after ${slices} slices`);
      });
      await Promise.all([search, near]);
      expect(slices, 'the search walked every slice').toBeGreaterThanOrEqual(400);
      expect(order[0], 'the near query waited for one slice of the search, not for all of them').toMatch(/^near/);
    } finally {
      await f.t.close();
    }
  });
});

describe('a near reply of many POIs built in pieces', () => {
  it('lets a get.json sent while it is built be answered before it ends, and leaves out a POI deleted meanwhile', async () => {
    // In this process, as above: 1,000 POIs within 100 m, replies built 5 POIs at a time, so
    // a reply of all of them takes 200 turns of the lane.
    const f = await poiFixture({ replyPiece: 5 });
    try {
      const clientId = f.t.core.tokens.resolve(f.admin).clientId;
      const ids = f.t.core.pois.addMany(clientId, Array.from({ length: 1000 }, (_, i) => ({ name: `Item ${i}`, lat: 48.85 + (i % 40) / 1e5, lng: 2.35 + Math.floor(i / 40) / 1e5, categories: [1] })));
      let pieces = 0;
      const rows = f.t.core.store.rows.bind(f.t.core.store);
      f.t.core.store.rows = (...args) => ((pieces += 1), rows(...args));
      const order: string[] = [];
      const near = f.t.get('/1/pois/get_near.json', { oauth_token: f.admin, lat: 48.85, lng: 2.35, radius: 1000, total: 1000 }).then((r) => {
        order.push('near');
        return r;
      });
      while (pieces < 3 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
      // The farthest POI, deleted while the reply is under way, before its piece is read.
      const farthest = ids.at(-1)!;
      f.t.core.pois.remove(clientId, farthest);
      const get = f.t.get('/1/pois/get.json', { oauth_token: f.admin, poi: ids[0]! }).then((r) => {
        expect(r.status).toBe(200);
        order.push(`get after ${pieces} pieces`);
      });
      const [reply] = await Promise.all([near, get]);
      expect(pieces, 'the reply was built in pieces').toBeGreaterThanOrEqual(200);
      expect(order[0], 'the get.json waited for one piece of the reply, not for all of them').toMatch(/^get/);
      const answered = (reply.body as Array<{ id: number }>).map((p) => p.id);
      expect(answered).toHaveLength(999);
      expect(answered).not.toContain(farthest);
    } finally {
      await f.t.close();
    }
  });
});
