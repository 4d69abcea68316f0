import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startBrowserMode } from '../../main/app/browser-mode.js';
import { desktopListener } from '../../main/app/desktop-listener.js';
import { startHost } from '../../main/app/host.js';
import { createCore } from '../../main/core/service.js';
import { SyncAgent } from '../../main/sync-client/agent.js';
import { saveTarget } from '../../main/sync-client/credential.js';
import { freePort } from '../support/free-port.js';

/**
 * Each host runs the one lifecycle (main/app/host.ts) and, stopped, leaves nothing running: no
 * timer, server, socket or child process more than before it started. `cli serve` is a real
 * process stopped by SIGTERM: it must exit by itself (the CLI sets an exit code, never calls
 * process.exit), which it cannot while anything is left. The desktop's Electron shell cannot run
 * here (no Electron binary): its parts (the desktop listener, the sync agent) go through the
 * same lifecycle in this process.
 */
const root = join(import.meta.dirname, '..', '..');
const quiet = pino({ enabled: false });
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const dataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'poi-host-'));
  dirs.push(dir);
  return dir;
};

/** What keeps this process's event loop busy, by kind, as counts. */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** The kinds a host could leave behind, and how many more there are than in `before`. */
function leftSince(before: Map<string, number>): Record<string, number> {
  const left: Record<string, number> = {};
  for (const [kind, n] of resources()) {
    if (!/Timeout|TCP|Pipe|Process|Immediate|UDP/.test(kind)) continue;
    const more = n - (before.get(kind) ?? 0);
    if (more > 0) left[kind] = more;
  }
  return left;
}

/** Lets closed handles go (a closed socket is released on a later turn). */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 50));

describe('the one host lifecycle', () => {
  it('browser mode, started and stopped with its listener on, leaves nothing running', async () => {
    await settle();
    const before = resources();
    const dir = dataDir();
    const running = await startBrowserMode({ file: join(dir, 'poi.sqlite'), port: await freePort(), token: 'test-console-token-0123456789', sampleMap: false, log: () => undefined });
    // The API listener turned on from the console, as a person would, to be stopped too.
    const answer = await fetch(new URL('/console/api/listener.configure', running.url), {
      method: 'POST',
      headers: { authorization: 'Bearer test-console-token-0123456789', 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true, port: await freePort(), scope: 'local' }),
    });
    expect(await answer.json()).toMatchObject({ ok: true, value: { state: 'listening' } });
    expect(Object.keys(leftSince(before)).length).toBeGreaterThan(0);
    await running.stop();
    await settle();
    expect(leftSince(before)).toEqual({});
  });

  it("the desktop's parts (its listener on, its sync agent) through the lifecycle leave nothing running", async () => {
    await settle();
    const before = resources();
    const dir = dataDir();
    const core = createCore({ file: join(dir, 'poi.sqlite') });
    core.settings.setListener({ enabled: true, port: await freePort(), scope: 'local' });
    const listener = desktopListener(core);
    const running = await startHost({
      core,
      logger: quiet,
      sampleMap: false,
      sync: new SyncAgent(core.syncSide, dir, { auto: true }),
      open: () => listener.restore(),
      close: () => listener.stop(),
    });
    expect(await listener.status()).toMatchObject({ state: 'listening' });
    await running.stop();
    // Asked twice (a quit while quitting): the same stop.
    await running.stop();
    await settle();
    expect(leftSince(before)).toEqual({});
  });

  it('stopping waits for the sync under way and arms no next one (it would run on a closed database)', async () => {
    const dir = dataDir();
    const core = createCore({ file: join(dir, 'poi.sqlite') });
    // A central that answers each request after 300 ms, with an error: the agent tries again soon.
    let asked = 0;
    const central = createServer((_request, response) => {
      asked += 1;
      setTimeout(() => response.writeHead(500).end('{}'), 300);
    });
    await new Promise<void>((resolve) => central.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = central.address() as AddressInfo;
      saveTarget(dir, { url: `http://127.0.0.1:${port}`, credential: 'device.secret' });
      const sync = new SyncAgent(core.syncSide, dir, { auto: true, minBackoffMs: 20, intervalMs: 20 });
      const running = await startHost({ core, logger: quiet, sampleMap: false, sync, open: async () => undefined, close: async () => undefined });
      while (asked === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const stopped = running.stop();
      // Before: stop() returned at once, the sync went on, and its end armed the next attempt.
      await stopped;
      const atStop = asked;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(asked).toBe(atStop);
    } finally {
      central.close();
    }
  });

  it('`cli serve` exits by itself on SIGTERM, code 0, its port closed', async () => {
    const dir = dataDir();
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'serve', '--data', dir, '--port', String(port)], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 300 && !out.includes('Admin UI:'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(out).toContain('Admin UI:');
      expect((await fetch(`http://127.0.0.1:${port}/1/users/me/show.json`)).status).toBe(401);
      child.kill('SIGTERM');
      const code = await Promise.race([exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 15_000))]);
      expect(code, out).toBe(0);
      await expect(fetch(`http://127.0.0.1:${port}/1/users/me/show.json`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  }, 60_000);
});
