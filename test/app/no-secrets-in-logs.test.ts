import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';

/**
 * Secrets are never logged: `cli serve --log-format json` is driven the way devices and the admin
 * console drive it, with every kind of secret the service sees (an administrator token, a member's
 * password, right and wrong, the token a login gives, the console token, in query strings, form
 * bodies and headers), and its whole output is searched for each of them.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'poi-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the logs of cli serve', () => {
  it('never hold a token, a password or the console token, and are JSON lines throughout', async () => {
    const added = await run(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'client', 'add', '--name', 'Secrets', '--implicit-flow', '--data', dir], { cwd: root });
    const { client_id: apiKey, admin_token: admin } = JSON.parse(added.stdout) as { client_id: string; admin_token: string };
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'serve', '--data', dir, '--port', String(port), '--log-format', 'json'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const base = `http://127.0.0.1:${port}`;
    const password = 'correct-horse-battery-staple';
    const wrong = 'wrong-horse-battery-staple';
    try {
      for (let i = 0; i < 300 && !out.includes('Admin UI'); i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const consoleToken = readFileSync(join(dir, 'console-token'), 'utf8').trim();
      const form = (fields: Record<string, string>): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
      expect((await fetch(`${base}/1/users.json`, form({ access_token: admin, username: 'secretive', pwd: password, email: 'secret@example.org' }))).status).toBe(200);
      const login = await fetch(`${base}/1/users/login.json`, form({ api_key: apiKey, username: 'secretive', pwd: password }));
      const memberToken = ((await login.json()) as { accreditation: { access_token: string } }).accreditation.access_token;
      expect(memberToken.length).toBeGreaterThan(10);
      expect((await fetch(`${base}/1/users/login.json`, form({ api_key: apiKey, username: 'secretive', pwd: wrong }))).status).toBe(401);
      expect((await fetch(`${base}/1/users/me/show.json?access_token=${memberToken}`)).status).toBe(200);
      expect((await fetch(`${base}/1/users/me/show.json?oauth_token=${memberToken}`)).status).toBe(200);
      expect((await fetch(`${base}/console/api/clients.list`, { method: 'POST', headers: { authorization: `Bearer ${consoleToken}`, 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
      // A refused console token, and a malformed request carrying a token.
      expect((await fetch(`${base}/console/api/clients.list`, { method: 'POST', headers: { authorization: `Bearer ${consoleToken}x` } })).status).toBe(401);
      await fetch(`${base}/1/pois/get.json?oauth_token=${admin}&poi=not-a-number`);
      child.kill('SIGTERM');
      await exited;
      for (const secret of [admin, password, wrong, memberToken, consoleToken]) expect(out, `a secret reached the log`).not.toContain(secret);
      const lines = out.split('\n').filter((line) => line.trim() !== '');
      expect(lines.length).toBeGreaterThan(8);
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
      expect(lines.some((line) => line.includes('"msg":"request"') && line.includes('/1/users/login.json'))).toBe(true);
      // Each request's line has the request inspector's fields (docs/devices.md#request-inspector), and no query string.
      const requests = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
      expect(requests).toContainEqual(expect.objectContaining({ address: '127.0.0.1', scheme: 'http', method: 'POST', path: '/1/users/login.json', operation: 'users.login', status: 200, caller: 'client' }));
      expect(requests).toContainEqual(expect.objectContaining({ method: 'GET', path: '/1/users/me/show.json', operation: 'users.show', status: 200, caller: 'member' }));
      expect(requests).toContainEqual(expect.objectContaining({ path: '/1/pois/get.json', operation: 'pois.get', status: 400, caller: 'client' }));
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
