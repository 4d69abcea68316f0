import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:net';
import { connect } from 'node:tls';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lanAddresses } from '../../main/http/addresses.js';
import { ListenerControl } from '../../main/http/listener-control.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore, type TestCore } from '../support/core.js';
import { freePort } from '../support/free-port.js';
import { httpsGet } from '../tls/listener.js';

let dir: string;
let core: TestCore;
let server: ApiServer;
let http: string;
let https: string;
let poiUrl: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'poi-https-'));
  core = testCore({ file: join(dir, 'poi.sqlite') });
  const client = core.clients.create({ name: 'Alpha' });
  const authority = core.tls;
  if (!authority) throw new Error('a core on disk has a certificate authority');
  server = new ApiServer(core, { tls: { authority, httpsPort: 0 } });
  const started = await server.start();
  http = `http://127.0.0.1:${started.port}`;
  https = `https://127.0.0.1:${started.httpsPort}`;
  const added = (await (await fetch(`${http}/1/pois/add.json?oauth_token=${client.admin_token}&lat=40.4&lng=-3.7&name=Sol&categories=7`)).json()) as { id: number };
  poiUrl = `/1/pois/get.json?oauth_token=${client.admin_token}&poi=${added.id}`;
});
afterAll(async () => {
  await server.stop();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the listener over HTTPS', () => {
  it('answers the same API over HTTPS to a client that trusts the data folder’s authority', async () => {
    const ca = readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8');
    const secure = await httpsGet(`${https}${poiUrl}`, ca);
    const plain = await fetch(`${http}${poiUrl}`);
    expect(secure).toEqual({ status: 200, body: await plain.text() });
    // By name too: the certificate lists localhost.
    expect(await httpsGet(`${https.replace('127.0.0.1', 'localhost')}${poiUrl}`, ca)).toMatchObject({ status: 200 });
  });

  it('answers a request that is not HTTP, or has no Host, in the API’s JSON shape, as the plain port does', async () => {
    const ca = readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8');
    const port = Number(new URL(https).port);
    for (const request of ['GARBAGE\r\n\r\n', 'GET /1/pois/get.json HTTP/1.1\r\nConnection: close\r\n\r\n']) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca, timeout: 10_000 }, () => socket.end(request));
        let text = '';
        socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        socket.on('end', () => resolve(text)).on('error', reject).on('timeout', () => socket.destroy(new Error('timed out')));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer).toMatch(/\r\ncontent-type: application\/json/i);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 400, description: 'EXCEPTION_MALFORMED_REQUEST' });
    }
  });

  it('is refused by a client that does not trust the authority', async () => {
    expect(await httpsGet(`${https}${poiUrl}`)).toEqual({ error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
  });

  it('offers the authority’s certificate over plain HTTP, as PEM and as DER, and never a key', async () => {
    const pem = await fetch(`${http}/ca.pem`);
    expect(pem.status).toBe(200);
    const text = await pem.text();
    expect(text).toBe(readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8'));
    expect(text).not.toContain('PRIVATE');
    const der = await fetch(`${http}/ca.crt`);
    expect(der.headers.get('content-type')).toBe('application/x-x509-ca-cert');
    expect(new X509Certificate(Buffer.from(await der.arrayBuffer())).fingerprint256).toBe(new X509Certificate(text).fingerprint256);
    for (const path of ['/ca-key.pem', '/tls/ca-key.pem', '/server-key.pem']) {
      const answer = await fetch(`${http}${path}`);
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(await answer.text()).not.toContain('PRIVATE');
    }
  });

  it('shows a page at / with the base URLs, the reference and the certificate, over both', async () => {
    for (const base of [http, https]) {
      const page = base === http ? await (await fetch(`${http}/`)).text() : await httpsGet(`${https}/`, readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8'));
      const html = typeof page === 'string' ? page : 'body' in page ? page.body : page.error;
      // This listener answers this computer only: a phone that typed 127.0.0.1 would reach itself.
      expect(html).not.toContain(`${http}/1/`);
      expect(html).not.toContain(`${https}/1/`);
      expect(html).toContain('None a phone can reach: the listener answers this computer only.');
      for (const link of ['/1/reference', '/1/openapi.json', '/ca.crt', '/ca.pem']) expect(html).toContain(`href="${link}"`);
      expect(html).toContain('network-security-config');
      expect(html).toContain('Certificate Trust Settings');
      expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1|localhost)[a-z]/i);
      expect(html).not.toContain('PRIVATE KEY');
    }
    // The same page at /connect, where serve has it beside the admin UI: one address for every host.
    expect(await (await fetch(`${http}/connect`)).text()).toBe(await (await fetch(`${http}/`)).text());
    const head = await fetch(`${http}/`);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(head.headers.get('content-security-policy')).toContain("default-src 'none'");
  });
});

describe('the page of a listener on the local network', () => {
  it('lists the addresses a phone can reach, and not the loopback ones', async () => {
    const lan = lanAddresses();
    const authority = core.tls;
    if (!authority) throw new Error('a core on disk has a certificate authority');
    const wide = new ApiServer(core, { host: '0.0.0.0', tls: { authority, httpsPort: 0 } });
    const { port, httpsPort } = await wide.start();
    try {
      const html = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(html).not.toContain('127.0.0.1');
      for (const address of lan) {
        expect(html).toContain(`http://${address}:${port}/1/`);
        expect(html).toContain(`https://${address}:${httpsPort}/1/`);
      }
      if (lan.length === 0) expect(html).toContain('None a phone can reach');
    } finally {
      await wide.stop();
    }
  });
});

describe('the listener control with HTTPS', () => {
  it('lists https:// addresses, and changes the HTTP port while keeping the HTTPS one', async () => {
    const control = new ListenerControl(core);
    try {
      const [port, httpsPort, next] = [await freePort(), await freePort(), await freePort()];
      const status = await control.configure({ enabled: true, port, scope: 'local', httpsPort });
      expect(status.addresses).toEqual([`http://127.0.0.1:${port}/1/`, `https://127.0.0.1:${httpsPort}/1/`]);
      const moved = await control.configure({ enabled: true, port: next, scope: 'local', httpsPort });
      expect(moved).toMatchObject({ state: 'listening', port: next, httpsPort });
      expect(await httpsGet(`https://127.0.0.1:${httpsPort}${poiUrl}`, readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8'))).toMatchObject({ status: 200 });
      const off = await control.configure({ enabled: true, port: next, scope: 'local', httpsPort: null });
      expect(off.addresses).toEqual([`http://127.0.0.1:${next}/1/`]);
    } finally {
      await control.stop();
    }
  });

  it('refuses a taken HTTPS port under its own field, naming it, and keeps the running listener', async () => {
    const control = new ListenerControl(core);
    // Another program: reads and never answers.
    const holder = createServer((socket) => socket.on('error', () => undefined).resume()).listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => holder.once('listening', resolve));
      const taken = (holder.address() as { port: number }).port;
      const port = await freePort();
      await control.configure({ enabled: true, port, scope: 'local' });
      await expect(control.configure({ enabled: true, port, scope: 'local', httpsPort: taken })).rejects.toMatchObject({
        code: 'PORT_UNAVAILABLE',
        parameter: 'httpsPort',
        message: `port ${taken} is already in use by another program`,
      });
      expect(control.status()).toMatchObject({ state: 'listening', port, addresses: [`http://127.0.0.1:${port}/1/`] });
    } finally {
      await control.stop();
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
