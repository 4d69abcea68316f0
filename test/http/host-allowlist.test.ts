import { hostname } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { consoleOptions, fixedListener } from '../../main/app/console.js';
import { lanAddresses } from '../../main/http/addresses.js';
import { ownNames, hostName } from '../../main/http/host-allowlist.js';
import { ApiServer } from '../../main/http/server.js';
import { rawRequest } from '../support/raw-http.js';
import { testCore, type TestCore } from '../support/core.js';

/**
 * DNS rebinding (docs/devices.md#host-names): the API and the console answer only requests whose
 * Host names this computer; a foreign name is refused with 421 before anything runs.
 */
const TOKEN = 'test-console-token-0123456789';
const running: Array<{ server: ApiServer; core: TestCore }> = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.server.stop();
    r.core.close();
  }
});

async function serve(host: string): Promise<{ port: number; core: TestCore; admin: string; clientId: string }> {
  const core = testCore();
  const listener = fixedListener(() => ({ enabled: true, port: 1, scope: 'local', state: 'listening', addresses: [], error: null }));
  const server = new ApiServer(core, { host, port: 0, console: consoleOptions(core, listener, () => undefined, () => TOKEN) });
  running.push({ server, core });
  const { port } = await server.start();
  const { client_id: clientId, admin_token: admin } = core.clients.create({ name: 'Hosts' });
  return { port, core, admin, clientId };
}

const get = (port: number, host: string, path: string) => rawRequest(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
const post = (port: number, host: string, path: string, headers: string, body: string) =>
  rawRequest(port, `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);

describe('the Host allowlist', () => {
  it('refuses a foreign Host with 421 in the API error shape, and runs nothing', async () => {
    const s = await serve('127.0.0.1');
    // A read (answered before Fastify when the Host is ours), a write, and a console operation.
    const read = await get(s.port, 'evil.example', `/1/pois/categories.json?oauth_token=${s.admin}`);
    expect(read.status).toBe(421);
    expect(JSON.parse(read.body)).toMatchObject({ code: 421, description: 'EXCEPTION_MISDIRECTED_REQUEST', message: expect.stringContaining('evil.example') });
    const add = await post(s.port, `evil.example:${s.port}`, `/1/pois/add.json?oauth_token=${s.admin}`, 'Content-Type: application/x-www-form-urlencoded\r\n', 'lat=1&lng=1&name=Rebound&categories=7');
    expect(add.status).toBe(421);
    const op = await post(s.port, 'evil.example', '/console/api/clients.create', `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n`, '{"name":"Rebound"}');
    expect(op.status).toBe(421);
    const page = await get(s.port, 'evil.example', '/');
    expect(page.status).toBe(421);
    const left = await get(s.port, '127.0.0.1', `/1/pois/get_where.json?oauth_token=${s.admin}`);
    expect(JSON.parse(left.body)).toEqual([]);
    expect(s.core.clients.list().map((c) => c.name)).toEqual(['Hosts']);
  });

  it('answers its own names, with or without the port', async () => {
    const s = await serve('127.0.0.1');
    const machine = hostname();
    for (const host of [`127.0.0.1:${s.port}`, '127.0.0.1', `localhost:${s.port}`, 'LOCALHOST', `[::1]:${s.port}`, machine, `${machine}.local:${s.port}`, `10.0.2.2:${s.port}`]) {
      const r = await get(s.port, host, `/1/pois/categories.json?oauth_token=${s.admin}`);
      expect({ host, status: r.status }).toEqual({ host, status: 200 });
    }
    const op = await post(s.port, `127.0.0.1:${s.port}`, '/console/api/clients.list', `Authorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n`, '{}');
    expect(op.status).toBe(200);
  });

  it('answers a LAN address of this computer only when bound to the LAN', async (context) => {
    const lan = lanAddresses()[0];
    if (lan === undefined) {
      console.log('skipped: this computer has no LAN address');
      context.skip();
      return;
    }
    // Connected through the loopback: only the Host header names the LAN address.
    const wide = await serve('0.0.0.0');
    expect((await get(wide.port, `${lan}:${wide.port}`, `/1/pois/categories.json?oauth_token=${wide.admin}`)).status).toBe(200);
    expect((await get(wide.port, 'evil.example', `/1/pois/categories.json?oauth_token=${wide.admin}`)).status).toBe(421);
    const local = await serve('127.0.0.1');
    expect((await get(local.port, `${lan}:${local.port}`, `/1/pois/categories.json?oauth_token=${local.admin}`)).status).toBe(421);
  });

  it('reads the name out of a Host header', () => {
    expect(hostName('Example.COM:8080')).toBe('example.com');
    expect(hostName('[::1]:8080')).toBe('[::1]');
    expect(hostName('[::1]')).toBe('[::1]');
    expect(ownNames('0.0.0.0', () => ['192.0.2.7']).has('192.0.2.7')).toBe(true);
    expect(ownNames('127.0.0.1', () => ['192.0.2.7']).has('192.0.2.7')).toBe(false);
    expect(ownNames('::', () => []).has('evil.example')).toBe(false);
  });
});
