import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createInvoke } from '../../main/app/console.js';
import type { Core } from '../../main/core/service.js';
import { ListenerControl } from '../../main/http/listener-control.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore } from '../support/core.js';

/** A port held by "another program": a bare TCP server that reads and never answers. */
const holders: Server[] = [];
async function hold(host: string, port = 0): Promise<number> {
  const server = createServer((socket) => socket.on('error', () => undefined).resume());
  holders.push(server);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return (server.address() as { port: number }).port;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The HTTP status the API answers on that port (401 without a token), or 'nothing'. */
const reach = (port: number, host = '127.0.0.1'): Promise<number | 'nothing'> =>
  fetch(`http://${host}:${port}/1/users/me/show.json`).then((r) => r.status, () => 'nothing' as const);

let core: Core;
let consolePort: number | undefined;
let control: ListenerControl;
const others: Array<{ stop(): Promise<void> }> = [];

beforeEach(() => {
  core = testCore();
  consolePort = undefined;
  control = new ListenerControl(core, undefined, () => consolePort);
});
afterEach(async () => {
  await control.stop();
  await Promise.all(others.splice(0).map((s) => s.stop()));
  await Promise.all(holders.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
  core.close();
});

describe('the listener control, over real ports', () => {
  it('keeps the working listener and its saved settings when the new port is taken, and answers an error naming the port', async () => {
    const port = await freePort();
    expect(await control.configure({ enabled: true, port, scope: 'local' })).toMatchObject({ state: 'listening', port });
    const taken = await hold('0.0.0.0');

    await expect(control.configure({ enabled: true, port: taken, scope: 'local' })).rejects.toMatchObject({
      code: 'PORT_UNAVAILABLE',
      parameter: 'port',
      message: `port ${taken} is already in use by another program`,
    });
    expect(control.status()).toMatchObject({ state: 'listening', port, scope: 'local', error: null, addresses: [`http://127.0.0.1:${port}/1/`] });
    expect(core.settings.listener()).toEqual({ enabled: true, port, scope: 'local', corsOrigins: [], faults: [] });
    expect(await reach(port)).toBe(401);
  });

  it('stays stopped when stop() comes while a configure is still starting the listener', async () => {
    const port = await freePort();
    const configuring = control.configure({ enabled: true, port, scope: 'local' });
    // Its server is being built (routes mounted): not listening yet.
    await control.stop();
    expect(await configuring).toMatchObject({ state: 'stopped' });
    // Before: the configure went on and left a listener nobody would stop (a closing host's).
    expect(control.status()).toMatchObject({ state: 'stopped', addresses: [] });
    expect(await reach(port)).toBe('nothing');
  });

  it('answers the console with a catalog error, never a success', async () => {
    const invoke = createInvoke(core, control, (e) => {
      throw e;
    });
    const taken = await hold('127.0.0.1');
    const answer = await invoke('listener.configure', { enabled: true, port: taken, scope: 'local' });
    expect(answer).toEqual({
      ok: false,
      error: { code: 409, description: 'EXCEPTION_PORT_UNAVAILABLE', parameter: 'port', message: `port ${taken} is already in use by another program` },
    });
    // Nothing was running and nothing was saved: it stays off.
    expect(control.status()).toMatchObject({ state: 'stopped', enabled: false, error: null });
    expect(core.settings.listener().enabled).toBe(false);
  });

  it('moves to the same port on the other scope by freeing it first', async () => {
    const port = await freePort();
    await control.configure({ enabled: true, port, scope: 'local' });
    expect(await control.configure({ enabled: true, port, scope: 'lan' })).toMatchObject({ state: 'listening', port, scope: 'lan' });
    expect(core.settings.listener()).toEqual({ enabled: true, port, scope: 'lan', corsOrigins: [], faults: [] });
    // Bound to every interface now: another program cannot take the port on any address.
    await expect(hold('127.0.0.1', port)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(await reach(port)).toBe(401);
  });

  it('restarts the old listener when the same port on the other scope turns out to be taken by someone else', async () => {
    const port = await freePort();
    await control.configure({ enabled: true, port, scope: 'local' });
    // Another program on another loopback address: 127.0.0.1 is free, all interfaces are not.
    await hold('127.0.0.2', port);
    await expect(control.configure({ enabled: true, port, scope: 'lan' })).rejects.toMatchObject({
      code: 'PORT_UNAVAILABLE',
      message: `port ${port} is already in use by another program`,
    });
    expect(control.status()).toMatchObject({ state: 'listening', port, scope: 'local' });
    expect(core.settings.listener()).toEqual({ enabled: true, port, scope: 'local', corsOrigins: [], faults: [] });
    expect(await reach(port)).toBe(401);
  });

  it("names this app's admin console when it is the console's port", async () => {
    consolePort = await hold('127.0.0.1');
    await expect(control.configure({ enabled: true, port: consolePort, scope: 'lan' })).rejects.toMatchObject({
      message: `port ${consolePort} is already in use by this app's admin console`,
    });
  });

  it('names another copy of this app when the port answers as this service does', async () => {
    const other = testCore();
    const server = new ApiServer(other, { host: '127.0.0.1', port: 0 });
    const { port } = await server.start();
    others.push({ stop: async () => (await server.stop(), other.close()) });
    await expect(control.configure({ enabled: true, port, scope: 'local' })).rejects.toMatchObject({
      message: `port ${port} is already in use by another copy of this app (cli serve?)`,
    });
  });

  it('reports a taken port at start-up as failed, since there is no listener to keep', async () => {
    const taken = await hold('0.0.0.0');
    core.settings.setListener({ enabled: true, port: taken, scope: 'local' });
    expect(await control.restore()).toMatchObject({ state: 'failed', error: `port ${taken} is already in use by another program` });
    // A working port then clears the failure.
    const port = await freePort();
    expect(await control.configure({ enabled: true, port, scope: 'local' })).toMatchObject({ state: 'listening', error: null });
  });

  it('switches off', async () => {
    const port = await freePort();
    await control.configure({ enabled: true, port, scope: 'local' });
    expect(await control.configure({ enabled: false, port, scope: 'local' })).toMatchObject({ state: 'stopped', addresses: [] });
    expect(core.settings.listener().enabled).toBe(false);
    expect(await reach(port)).toBe('nothing');
  });

  it('switches off at once with connections open that never sent a byte (a browser opens them ahead of need)', async () => {
    const port = await freePort();
    await control.configure({ enabled: true, port, scope: 'local' });
    const silent = await Promise.all(
      [1, 2, 3].map(
        () =>
          new Promise<Socket>((resolve) => {
            const socket = connect(port, '127.0.0.1', () => resolve(socket));
            socket.on('error', () => undefined);
          }),
      ),
    );
    const closed = silent.map((socket) => new Promise((resolve) => socket.once('close', resolve)));
    const started = performance.now();
    await control.configure({ enabled: false, port, scope: 'local' });
    // Node alone waits for them until its 10 s headers timeout.
    expect(performance.now() - started).toBeLessThan(2000);
    await Promise.all(closed);
  });

  it('has one .local name per data folder, answers to it, and shows it only while on the local network', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-local-name-'));
    const file = join(dir, 'poi.sqlite');
    let onDisk = testCore({ file });
    let own = new ListenerControl(onDisk);
    let open = true;
    try {
      const port = await freePort();
      const lan = await own.configure({ enabled: true, port, scope: 'lan' });
      expect(lan.mdnsName).toMatch(/^poi-[0-9a-f]{6}\.local$/);
      const name = lan.mdnsName ?? '';
      const byName = await fetch(`http://127.0.0.1:${port}/1/users/me/show.json`, { headers: { host: `${name}:${port}` } });
      expect(byName.status).toBe(401);
      const local = await own.configure({ enabled: true, port, scope: 'local' });
      expect(local.mdnsName).toBeUndefined();
      await own.stop();
      onDisk.close();
      open = false;

      // The same name after a restart, from the data folder; another folder draws its own.
      onDisk = testCore({ file });
      open = true;
      own = new ListenerControl(onDisk);
      expect((await own.configure({ enabled: true, port, scope: 'lan' })).mdnsName).toBe(name);
      expect(core.settings.localName()).not.toBe(name.slice(0, -'.local'.length));
    } finally {
      await own.stop();
      if (open) onDisk.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
