import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkServerIdentity, connect, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SERVER_CERT_DAYS, RENEW_BEFORE_DAYS } from '../../main/core/tls/authority.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore, type TestCore } from '../support/core.js';

/**
 * A running HTTPS listener whose computer gains an address: the address source is the test's,
 * read every CHECK_MS, so that "before" is certain; the second-host test does the same with a
 * real interface.
 */
const CHECK_MS = 100;
const WAIT_MS = 10_000;
const NEW_ADDRESS = '10.9.9.1';
const DAY_MS = 24 * 60 * 60 * 1000;

let dir: string;
let core: TestCore;
let server: ApiServer;
let httpsPort: number;
let ca: string;
let poiPath: string;
let addresses = ['192.168.1.20'];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'poi-reissue-'));
  core = testCore({ file: join(dir, 'poi.sqlite') });
  const authority = core.tls;
  if (!authority) throw new Error('a core on disk has a certificate authority');
  const client = core.clients.create({ name: 'Alpha' });
  server = new ApiServer(core, { tls: { authority, httpsPort: 0, addresses: () => addresses, checkEveryMs: CHECK_MS } });
  const started = await server.start();
  httpsPort = started.httpsPort ?? 0;
  ca = readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8');
  const added = (await (await fetch(`http://127.0.0.1:${started.port}/1/pois/add.json?oauth_token=${client.admin_token}&lat=40.4&lng=-3.7&name=Sol&categories=7`)).json()) as { id: number };
  poiPath = `/1/pois/get.json?oauth_token=${client.admin_token}&poi=${added.id}`;
});
afterAll(async () => {
  await server.stop();
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Outcome {
  status?: number;
  error?: string;
  reused?: boolean;
  names?: string;
}

/** A GET to the listener on 127.0.0.1 whose certificate is checked as if it were reached at `as`. */
function getAs(as: string, agent?: Agent): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: httpsPort,
        path: poiPath,
        ca,
        timeout: 5000,
        ...(agent ? { agent } : { agent: false }),
        checkServerIdentity: (_host: string, cert: PeerCertificate) => checkServerIdentity(as, cert),
      },
      (res) => {
        const names = (res.socket as { getPeerCertificate?: () => PeerCertificate }).getPeerCertificate?.().subjectaltname ?? '';
        res.resume().on('end', () => resolve({ status: res.statusCode ?? 0, reused: req.reusedSocket, names }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

describe('a running HTTPS listener whose addresses change', () => {
  it('issues a new certificate for the new address without a restart; open connections keep working', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      // An open connection, made before the change.
      expect(await getAs('127.0.0.1', agent)).toMatchObject({ status: 200, reused: false });
      // Several checks pass while nothing changes: the same certificate.
      await new Promise((resolve) => setTimeout(resolve, CHECK_MS * 3));
      const before = await getAs(NEW_ADDRESS);
      expect(before.error).toBe('ERR_TLS_CERT_ALTNAME_INVALID');

      addresses = ['192.168.1.20', NEW_ADDRESS];
      let after: Outcome = before;
      for (const deadline = Date.now() + WAIT_MS; after.status !== 200 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, CHECK_MS));
        after = await getAs(NEW_ADDRESS);
      }
      expect(after.status).toBe(200);
      expect(after.names).toContain(`IP Address:${NEW_ADDRESS}`);
      // The connection opened before still answers, on the same socket, with its old certificate.
      const kept = await getAs('127.0.0.1', agent);
      expect(kept).toMatchObject({ status: 200, reused: true });
      expect(kept.names).not.toContain(NEW_ADDRESS);
    } finally {
      agent.destroy();
    }
  }, 30_000);

  it(`issues a new certificate within ${RENEW_BEFORE_DAYS} days of the end of the one in use, by the core's clock`, async () => {
    /** The end of the certificate served now (its dates only: the core's clock is not the TLS client's). */
    const servedUntil = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port: httpsPort, rejectUnauthorized: false, timeout: 5000 }, () => {
          resolve(Date.parse(socket.getPeerCertificate().valid_to));
          socket.end();
        });
        socket.on('error', reject).on('timeout', () => socket.destroy(new Error('timed out')));
      });
    const first = await servedUntil();
    await new Promise((resolve) => setTimeout(resolve, CHECK_MS * 3));
    expect(await servedUntil()).toBe(first);

    core.clock.advance((MAX_SERVER_CERT_DAYS - RENEW_BEFORE_DAYS + 1) * DAY_MS);
    let renewed = first;
    for (const deadline = Date.now() + WAIT_MS; renewed === first && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, CHECK_MS));
      renewed = await servedUntil();
    }
    expect(renewed - first).toBeGreaterThan((MAX_SERVER_CERT_DAYS - RENEW_BEFORE_DAYS) * DAY_MS);
  }, 30_000);
});
