import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STOP_GRACE_MS } from '../../main/http/connection-guard.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore, type TestCore } from '../support/core.js';

/**
 * A peer that holds half of its headers, or one byte of a TLS handshake, must not keep a stopping
 * listener (and its ports) for as long as it likes, nor hold a connection past the headers' time.
 */
let dir: string;
let core: TestCore;
let peers: Socket[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'poi-held-'));
  core = testCore({ file: join(dir, 'poi.sqlite') });
});
afterEach(() => {
  for (const peer of peers) peer.destroy();
  peers = [];
  core.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A connection that sends `bytes` and then nothing; resolves once they are sent. */
function holder(port: number, bytes: Buffer | string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes, () => resolve(socket)));
    socket.on('error', () => undefined);
    socket.once('error', reject);
    peers.push(socket);
  });
}

const closedWithin = (socket: Socket, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    if (socket.destroyed || socket.closed) return resolve(true);
    const timer = setTimeout(() => resolve(false), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });

/** The first bytes of a TLS ClientHello record: a handshake begun and never finished. */
const TLS_START = Buffer.from([0x16, 0x03, 0x01]);

describe('a listener with connections held half-way', () => {
  it('stops within its grace period, closing them, though they never finish', { timeout: 30_000 }, async () => {
    const authority = core.tls;
    if (!authority) throw new Error('a core on disk has a certificate authority');
    const server = new ApiServer(core, { tls: { authority, httpsPort: 0 } });
    const { port, httpsPort } = await server.start();
    const plain = await holder(port, 'GET /1/pois/categories.json HTTP/1.1\r\nHost: 127.0');
    const tls = await holder(httpsPort ?? 0, TLS_START);
    const started = performance.now();
    await server.stop();
    const took = performance.now() - started;
    // Before: stop() waited on both for as long as the peers kept them (over 25 s in a review).
    expect(took).toBeLessThan(STOP_GRACE_MS * 2 + 1000);
    expect(await closedWithin(plain, 1000)).toBe(true);
    expect(await closedWithin(tls, 1000)).toBe(true);
  });

  it('closes a TLS handshake that stalls, in the time headers get', { timeout: 30_000 }, async () => {
    const authority = core.tls;
    if (!authority) throw new Error('a core on disk has a certificate authority');
    const server = new ApiServer(core, { tls: { authority, httpsPort: 0 }, connections: { headersTimeoutMs: 500 } });
    const { httpsPort } = await server.start();
    try {
      const tls = await holder(httpsPort ?? 0, TLS_START);
      // Before: Node's handshake timeout, 120 s.
      expect(await closedWithin(tls, 5000)).toBe(true);
    } finally {
      await server.stop();
    }
  });
});
