import type { ChildProcess } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultConnectionLimits } from '../../main/http/connection-guard.js';
import { startApiChild } from '../support/api-child-process.js';
import { sleep } from '../support/child-server.js';

/**
 * Slow and idle connections against a listener in its own process whose open-file limit is
 * lowered to 600 (prlimit), so that exhausting it takes hundreds of connections, not 20,000.
 * The attack comes from 127.0.0.2, the legitimate client from 127.0.0.1: both loopback.
 */
let child: ChildProcess | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  child?.kill('SIGKILL');
  child = undefined;
});

async function startLimited(options: object): Promise<{ port: number; admin: string }> {
  const started = await startApiChild(options, { prlimit: ['--nofile=600:600'] });
  child = started.process;
  return started;
}

const heard = new WeakMap<Socket, string>();

/** A connection from 127.0.0.2 that declares a body and sends one byte of it. */
function slowBody(port: number): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
    sockets.push(socket);
    socket.on('error', () => undefined);
    // Read what the server sends, so that its closing is seen.
    socket.on('data', (chunk: Buffer) => heard.set(socket, (heard.get(socket) ?? '') + chunk.toString()));
    socket.once('connect', () => {
      socket.write('POST /1/pois/add.json HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\na');
      resolve(socket);
    });
    socket.once('close', () => resolve(socket));
  });
}

const openCount = (list: Socket[]): number => list.filter((s) => !s.destroyed && !s.readableEnded).length;

async function legitimate(port: number, admin: string): Promise<number> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 3000);
  try {
    const r = await fetch(`http://127.0.0.1:${port}/1/pois/get_where.json?access_token=${admin}`, { signal: controller.signal });
    await r.text();
    return r.status;
  } catch {
    return 0;
  } finally {
    clearTimeout(timer);
  }
}

describe('slow connections', () => {
  it('1,000 connections holding a half-sent body from one address do not stop others from being served', async () => {
    const { port, admin } = await startLimited({});
    const attack = await Promise.all(Array.from({ length: 1000 }, () => slowBody(port)));
    await sleep(300);
    expect(await legitimate(port, admin)).toBe(200);
    // The one address holds at most its share; the rest were refused at the door.
    expect(openCount(attack)).toBeLessThanOrEqual(defaultConnectionLimits(600).maxConnectionsPerAddress);
  }, 30_000);

  it('times out a body that never finishes, and a connection that never sends a byte', async () => {
    const { port, admin } = await startLimited({ connections: { headersTimeoutMs: 800, requestTimeoutMs: 1500 } });
    const bodies = await Promise.all(Array.from({ length: 20 }, () => slowBody(port)));
    const idle = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' });
    sockets.push(idle);
    idle.on('error', () => undefined);
    idle.resume();
    expect(openCount(bodies)).toBe(20);
    await sleep(3500);
    expect(openCount(bodies)).toBe(0);
    const answer = heard.get(bodies[0]!) ?? '';
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 408, description: 'EXCEPTION_REQUEST_TIMEOUT' });
    expect(idle.destroyed || idle.readableEnded).toBe(true);
    expect(await legitimate(port, admin)).toBe(200);
  }, 30_000);
});
