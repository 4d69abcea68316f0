import { afterEach, describe, expect, it } from 'vitest';
import { createInvoke } from '../../main/app/console.js';
import { ListenerControl } from '../../main/http/listener-control.js';
import { CONSOLE } from '../../main/core/store/write-path.js';
import { freePort } from '../support/free-port.js';
import { FAULT_HEADER } from '../../main/http/faults.js';
import { parseFaultRule, type FaultRule } from '../../shared/faults.js';
import { ApiServer } from '../../main/http/server.js';
import { rawRequest } from '../support/raw-http.js';
import { testCore, type TestCore } from '../support/core.js';

/** Faults on purpose (docs/devices.md#faults-on-purpose), on a real listener. */
const running: Array<{ server: ApiServer; core: TestCore }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.stop();
    r.core.close();
  }
});

async function serve(rules: string[]): Promise<{ base: string; port: number; admin: string }> {
  const core = testCore();
  const parsed = rules.map(parseFaultRule);
  const server = new ApiServer(core, { port: 0, faults: () => parsed });
  running.push({ server, core });
  const { port } = await server.start();
  return { base: `http://127.0.0.1:${port}`, port, admin: core.clients.create({ name: 'Faults' }).admin_token };
}

describe('faults on purpose', () => {
  it('fails about the share asked with the status asked, each failure saying which rule; the rest succeed untouched', async () => {
    const s = await serve(['pois/categories:status=503@25%']);
    let failed = 0;
    for (let i = 0; i < 200; i++) {
      const r = await fetch(`${s.base}/1/pois/categories.json?oauth_token=${s.admin}`);
      const body = (await r.json()) as Record<string, unknown>;
      if (r.status === 503) {
        failed++;
        expect(r.headers.get(FAULT_HEADER)).toBe('pois/categories:status=503@25%');
        expect(r.headers.get('retry-after')).toBe('1');
        expect(body).toMatchObject({ code: 503, message: expect.stringContaining('fault injected on purpose') });
      } else {
        expect(r.status).toBe(200);
        expect(r.headers.get(FAULT_HEADER)).toBeNull();
      }
    }
    // 25 % of 200 is 50; 15 % to 35 % is more than three standard deviations either side.
    expect(failed).toBeGreaterThanOrEqual(30);
    expect(failed).toBeLessThanOrEqual(70);
    // Another operation is not touched.
    const other = await fetch(`${s.base}/1/pois/get_where.json?oauth_token=${s.admin}`);
    expect([other.status, other.headers.get(FAULT_HEADER)]).toEqual([200, null]);
  });

  it('adds at least the latency asked, to the operation named only', async () => {
    const s = await serve(['pois/get_where:latency=300ms', '*:latency=50-80ms']);
    const timed = async (path: string): Promise<{ ms: number; header: string | null; status: number }> => {
      const started = performance.now();
      const r = await fetch(`${s.base}/1/${path}.json?oauth_token=${s.admin}`);
      await r.text();
      return { ms: performance.now() - started, header: r.headers.get(FAULT_HEADER), status: r.status };
    };
    const slow = await timed('pois/get_where');
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(350);
    expect(slow.header).toBe('pois/get_where:latency=300ms, *:latency=50-80ms');
    const other = await timed('pois/categories');
    expect(other.ms).toBeGreaterThanOrEqual(50);
    expect(other.ms).toBeLessThan(300);
    expect(other.header).toBe('*:latency=50-80ms');
  });

  it('drops the connection: the client gets no answer at all', async () => {
    const s = await serve(['*:drop']);
    const answer = await rawRequest(s.port, `GET /1/pois/categories.json?oauth_token=${s.admin} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(answer).toEqual({ status: 0, body: '' });
    await expect(fetch(`${s.base}/1/pois/categories.json?oauth_token=${s.admin}`)).rejects.toThrow();
  });

  it('answers 429 with Retry-After, and 500 in the API shape', async () => {
    for (const [rule, status] of [['*:status=429', 429], ['users/{id}/show:status=500', 500]] as const) {
      const s = await serve([rule]);
      const r = await fetch(`${s.base}/1/users/me/show.json?oauth_token=${s.admin}`);
      expect(r.status).toBe(status);
      expect(r.headers.get(FAULT_HEADER)).toBe(rule);
      expect(r.headers.get('retry-after')).toBe(status === 429 ? '1' : null);
      expect(await r.json()).toMatchObject({ code: status, description: status === 429 ? 'EXCEPTION_TOO_MANY_REQUESTS' : 'EXCEPTION_INTERNAL' });
    }
  });

  it('refuses a malformed rule, saying what is wrong and how to write one', () => {
    const cases: Array<[string, RegExp]> = [
      ['pois/get:status=404', /needs status 500, 503 or 429/],
      ['pois/nothing:drop', /names no operation/],
      ['pois/get:latency=fast', /needs a latency in milliseconds/],
      ['pois/get:latency=800-200ms', /end is below its start/],
      ['*:latency=100000ms', /more than 60000 ms/],
      ['*:status=503@0%', /above 0%/],
      ['*:drop=3', /takes no value/],
      ['pois/get status=503', /is not a rule/],
    ];
    for (const [rule, why] of cases) {
      expect(() => parseFaultRule(rule), rule).toThrow(why);
      expect(() => parseFaultRule(rule), rule).toThrow(/write OPERATION\|\*:latency=/);
    }
    expect(parseFaultRule(' users/{id}/show:drop@5% ')).toMatchObject({ text: 'users/{id}/show:drop@5%', operation: 'users/{id}/show', share: 0.05, kind: 'drop' });
    expect(parseFaultRule('*:latency=200-800ms')).toMatchObject({ kind: 'latency', minMs: 200, maxMs: 800, share: 1 });
  });
});

describe('faults read on each request', () => {
  it('with no rule, keeps answering plain GETs before Fastify, from the memo of repeated reads; a rule set meanwhile applies at once', async () => {
    const core = testCore();
    const rules: FaultRule[] = [];
    const server = new ApiServer(core, { port: 0, faults: () => rules });
    running.push({ server, core });
    const { port } = await server.start();
    const client = core.clients.create({ name: 'Direct' });
    const added = await fetch(`http://127.0.0.1:${port}/1/pois/add.json?oauth_token=${client.admin_token}&lat=40.4169&lng=-3.7035&name=Sol&categories=7`);
    const poi = ((await added.json()) as { id: number }).id;
    const url = `http://127.0.0.1:${port}/1/pois/get.json?oauth_token=${client.admin_token}&poi=${poi}`;
    for (let i = 0; i < 4; i++) expect((await fetch(url)).status).toBe(200);
    // Only the direct path keeps replies in the memo (server.ts, answerDirectly): the second ask stores, the next two are its.
    expect(server.memoHits).toBe(2);
    rules.push(parseFaultRule('pois/get:status=429'));
    const refused = await fetch(url);
    expect([refused.status, refused.headers.get(FAULT_HEADER)]).toEqual([429, 'pois/get:status=429']);
    rules.length = 0;
    expect((await fetch(url)).status).toBe(200);
    expect(server.memoHits).toBe(3);
  });
});

describe('faults in the listener settings (the Listener panel)', () => {
  it('keeps the rules as written, reads settings saved before them as none, and refuses a malformed one under its field', async () => {
    const core = testCore();
    try {
      core.writes.now(CONSOLE, () => core.db.prepare("INSERT INTO settings (key, value) VALUES ('listener', ?)").run(JSON.stringify({ enabled: false, port: 8181, scope: 'lan' })));
      expect(core.settings.listener().faults).toEqual([]);
      // A rule this version cannot read (an operation since renamed) is left out, not the listener's settings with it.
      core.writes.now(CONSOLE, () =>
        core.db.prepare("UPDATE settings SET value = ? WHERE key = 'listener'").run(JSON.stringify({ enabled: true, port: 8181, scope: 'lan', faults: ['pois/renamed:drop', '*:drop@5%'] })),
      );
      expect(core.settings.listener()).toMatchObject({ enabled: true, port: 8181, scope: 'lan', faults: ['*:drop@5%'] });
      core.settings.setListener({ enabled: false, port: 8181, scope: 'lan', faults: [' pois/get:status=503@10% ', '*:latency=200-800ms'] });
      expect(core.settings.listener()).toMatchObject({ port: 8181, faults: ['pois/get:status=503@10%', '*:latency=200-800ms'] });
      expect(() => core.settings.setListener({ enabled: false, port: 8181, scope: 'lan', faults: ['pois/get:status=404'] })).toThrow(/needs status 500, 503 or 429/);

      const control = new ListenerControl(core);
      const invoke = createInvoke(core, control, () => undefined);
      const refused = await invoke('listener.configure', { enabled: false, port: 8181, scope: 'lan', faults: ['*:latency=800-200ms'] });
      expect(refused).toMatchObject({ ok: false, error: { code: 400, parameter: 'faults', message: expect.stringContaining('end is below its start') } });
      expect(core.settings.listener().faults).toEqual(['pois/get:status=503@10%', '*:latency=200-800ms']);
    } finally {
      core.close();
    }
  });

  it('applies a rule added while listening to the next request, without a restart; removing it stops it', async () => {
    const core = testCore();
    const control = new ListenerControl(core);
    try {
      const started = await control.configure({ enabled: true, port: await freePort(), scope: 'local' });
      const url = `http://127.0.0.1:${started.port}/1/pois/categories.json?oauth_token=${core.clients.create({ name: 'Faults' }).admin_token}`;
      const answer = async (): Promise<[number, string | null]> => {
        const r = await fetch(url);
        await r.arrayBuffer();
        return [r.status, r.headers.get(FAULT_HEADER)];
      };
      expect(await answer()).toEqual([200, null]);
      // The page for a phone that the Listener panel's QR codes point at.
      expect(started.pagePath).toBe('/');
      expect(await (await fetch(`http://127.0.0.1:${started.port}${started.pagePath}`)).text()).toContain('Connect a phone to the POI API');

      const rule = 'pois/categories:status=503';
      const on = await control.configure({ enabled: true, port: started.port, scope: 'local', faults: [rule] });
      expect(on.faults).toEqual([rule]);
      expect(on.port).toBe(started.port);
      expect(await answer()).toEqual([503, rule]);
      // A configure that does not name them keeps them.
      await control.configure({ enabled: true, port: started.port, scope: 'local' });
      expect(await answer()).toEqual([503, rule]);
      expect(core.settings.listener().faults).toEqual([rule]);

      const off = await control.configure({ enabled: true, port: started.port, scope: 'local', faults: [] });
      expect(off.faults).toEqual([]);
      expect(await answer()).toEqual([200, null]);
    } finally {
      await control.stop();
      core.close();
    }
  });
});
