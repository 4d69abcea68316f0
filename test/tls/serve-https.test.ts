import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { addClient, root } from '../support/child-server.js';
import { freePort } from '../support/free-port.js';
import { httpsGet } from './listener.js';

const START_TIMEOUT_MS = 60_000;
const data = mkdtempSync(join(tmpdir(), 'poi-serve-https-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));

describe('serve --https-port', () => {
  it('serves the API over HTTPS too, says where, and offers the phone page at /connect', async () => {
    const demo = await addClient(data, 'demo');
    const [port, httpsPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'serve', '--data', data, '--port', String(port), '--https-port', String(httpsPort)], {
      cwd: root,
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), START_TIMEOUT_MS);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      const output = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.includes('Admin UI')) resolve(text);
        });
        child.on('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      expect(output).toContain(`API listening on https://127.0.0.1:${httpsPort}/1/ (to trust it on a phone: http://127.0.0.1:${port}/connect)`);
      const ca = readFileSync(join(data, 'tls', 'ca.pem'), 'utf8');
      expect(await (await fetch(`http://127.0.0.1:${port}/ca.pem`)).text()).toBe(ca);
      expect(await httpsGet(`https://127.0.0.1:${httpsPort}/1/users.json?access_token=${demo.admin_token}`, ca)).toMatchObject({ status: 200 });
      const page = await (await fetch(`http://127.0.0.1:${port}/connect`)).text();
      // serve listens on this computer only here: nothing on the page a phone could reach.
      expect(page).toContain('None a phone can reach');
      expect(page).not.toContain(`https://127.0.0.1:${httpsPort}/1/`);
      // The admin UI keeps /.
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).not.toContain('Connect a phone');
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      clearTimeout(killer);
    }
  }, START_TIMEOUT_MS + 10_000);
});
