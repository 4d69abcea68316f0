import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startBrowserMode, type RunningConsole } from '../../main/app/browser-mode.js';
import { prepareDataDir } from '../../main/data-dir.js';

const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const dataDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'poi-console-token-'));
  dirs.push(d);
  return d;
};

const tokenIn = (text: string): string => {
  const m = /[#?]token=([\w-]+)/.exec(text);
  if (!m) throw new Error(`no token in ${text}`);
  return m[1]!;
};
const start = (dir: string): Promise<RunningConsole> => startBrowserMode({ file: prepareDataDir(dir), port: 0, log: () => undefined });
const status = async (running: RunningConsole, token: string): Promise<number> =>
  (
    await fetch(`${new URL(running.url).origin}/console/api/clients.list`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: '{}',
    })
  ).status;
const mode = (file: string): number => statSync(file).mode & 0o777;

describe('the console token of a data folder', () => {
  it('survives a restart, lives in a 0600 file, and is rotated by the CLI, which running consoles obey at once', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const token = tokenIn(first.url);
    await first.stop();
    const second = await start(dir);
    let rotated: string;
    try {
      expect(tokenIn(second.url)).toBe(token);
      expect(await status(second, token)).toBe(200);
      const file = join(dir, 'console-token');
      expect(readFileSync(file, 'utf8').trim()).toBe(token);
      expect(mode(file)).toBe(0o600);

      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'console', 'rotate-token', '--data', dir], { cwd: root });
      rotated = tokenIn(stdout);
      expect(rotated).not.toBe(token);
      expect(mode(file)).toBe(0o600);
      expect(await status(second, token)).toBe(401);
      expect(await status(second, rotated)).toBe(200);
    } finally {
      await second.stop();
    }
    const third = await start(dir);
    expect(tokenIn(third.url)).toBe(rotated);
    await third.stop();
  });

  it('tightens a token file others could read, and keeps its token', async () => {
    const dir = dataDir();
    prepareDataDir(dir);
    const file = join(dir, 'console-token');
    const token = 'kept-from-an-older-copy-0123456789abcdef';
    writeFileSync(file, `${token}\n`);
    chmodSync(file, 0o644);
    const running = await start(dir);
    try {
      expect(mode(file)).toBe(0o600);
      expect(tokenIn(running.url)).toBe(token);
      expect(await status(running, token)).toBe(200);
    } finally {
      await running.stop();
    }
  });

  it('refuses a token file that holds no usable token, saying which file', async () => {
    const dir = dataDir();
    prepareDataDir(dir);
    writeFileSync(join(dir, 'console-token'), 'two words\n', { mode: 0o600 });
    await expect(start(dir)).rejects.toThrow(/console-token/);
  });
});
