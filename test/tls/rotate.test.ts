import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalAuthority, listenerNames } from '../../main/core/tls/authority.js';
import { ListenerControl } from '../../main/http/listener-control.js';
import { ApiServer } from '../../main/http/server.js';
import { testCore } from '../support/core.js';
import { freePort } from '../support/free-port.js';
import { request } from 'node:https';

/** A GET on a new connection (no keep-alive, no TLS session reused) trusting only `ca`: its status, or the TLS error's code. */
function statusOver(url: string, ca: string): Promise<{ status: number } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(url, { ca, agent: false, timeout: 10_000 }, (res) => {
      res.resume().on('end', () => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    req.end();
  });
}

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const cli = async (...args: string[]): Promise<{ stdout: string; stderr: string }> =>
  run(join(ROOT, 'node_modules', '.bin', 'tsx'), ['main/cli.ts', ...args], { cwd: ROOT, timeout: 60_000 });

describe('rotating the data folder’s certificate authority', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'poi-ca-rotate-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a new authority whose server certificates the old one does not sign, keys kept private', async () => {
    const authority = new LocalAuthority(join(dir, 'tls'));
    const names = listenerNames(['192.168.1.20']);
    const oldCa = new X509Certificate(await authority.certificatePem());
    const oldServer = new X509Certificate((await authority.serverCredentials(names)).cert);
    expect(oldServer.verify(oldCa.publicKey)).toBe(true);

    const newCa = new X509Certificate(await authority.rotate());
    expect(newCa.fingerprint256).not.toBe(oldCa.fingerprint256);
    // Named to the minute, as a phone's list of authorities shows them.
    expect(newCa.subject).toMatch(/CN=POI admin local CA .* \d{4}-\d{2}-\d{2} \d{2}\.\d{2}/);
    expect(newCa.publicKey.export({ format: 'der', type: 'spki' }).equals(oldCa.publicKey.export({ format: 'der', type: 'spki' }))).toBe(false);
    // The same names: before rotate() this was the old certificate, kept while its names held.
    const newServer = new X509Certificate((await authority.serverCredentials(names)).cert);
    expect(newServer.verify(newCa.publicKey)).toBe(true);
    expect(newServer.verify(oldCa.publicKey)).toBe(false);
    // A second authority object on the folder (another process) reads the new one.
    expect(new X509Certificate(await new LocalAuthority(join(dir, 'tls')).certificatePem()).fingerprint256).toBe(newCa.fingerprint256);
    for (const key of ['ca-key.pem', 'server-key.pem']) expect((statSync(join(dir, 'tls', key)).mode & 0o777).toString(8)).toBe('600');
  });

  it('ca show prints the file’s fingerprint; ca rotate a new one', { timeout: 120_000 }, async () => {
    const shown = JSON.parse((await cli('ca', 'show', '--data', dir)).stdout) as { certificate: string; sha256: string; notAfter: string };
    expect(shown.certificate).toBe(join(dir, 'tls', 'ca.pem'));
    expect(shown.sha256).toBe(new X509Certificate(readFileSync(shown.certificate)).fingerprint256);
    expect(Date.parse(shown.notAfter)).toBeGreaterThan(Date.now());
    expect((await cli('ca', 'show', '--data', dir)).stdout).toContain(shown.sha256);

    const rotated = await cli('ca', 'rotate', '--data', dir);
    const after = JSON.parse(rotated.stdout) as { sha256: string };
    expect(after.sha256).not.toBe(shown.sha256);
    expect(after.sha256).toBe(new X509Certificate(readFileSync(shown.certificate)).fingerprint256);
    expect(rotated.stderr).toContain('install its certificate on every phone again');
    expect(rotated.stdout + rotated.stderr).not.toContain('PRIVATE KEY');
  });
});

describe('a running HTTPS listener when the authority is rotated', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'poi-ca-running-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('from the console: the next connection gets a certificate of the new authority at once', { timeout: 60_000 }, async () => {
    const core = testCore({ file: join(dir, 'poi.sqlite') });
    const control = new ListenerControl(core);
    try {
      const status = await control.configure({ enabled: true, port: await freePort(), scope: 'local', httpsPort: await freePort() });
      const base = status.addresses.find((a) => a.startsWith('https://'));
      if (!base) throw new Error(`no https address in ${JSON.stringify(status.addresses)}`);
      const url = new URL('/ca.pem', base).href;
      const oldCa = readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8');
      expect(await statusOver(url, oldCa)).toMatchObject({ status: 200 });
      expect(status.caFingerprint).toBe(new X509Certificate(oldCa).fingerprint256);

      const rotated = await control.rotateAuthority();
      const newCa = readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8');
      expect(rotated.caFingerprint).toBe(new X509Certificate(newCa).fingerprint256);
      expect(newCa).not.toBe(oldCa);
      // No wait: before refreshCertificate() the port kept the old authority's certificate for ADDRESS_CHECK_MS.
      expect(await statusOver(url, newCa)).toMatchObject({ status: 200 });
      expect(await statusOver(url, oldCa)).toMatchObject({ error: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    } finally {
      await control.stop();
      core.close();
    }
  });

  it('from another process (ca rotate beside serve): taken at the next check', { timeout: 60_000 }, async () => {
    const core = testCore({ file: join(dir, 'poi.sqlite') });
    const authority = core.tls;
    if (!authority) throw new Error('a core on disk has a certificate authority');
    const server = new ApiServer(core, { tls: { authority, httpsPort: 0, checkEveryMs: 100 } });
    try {
      const { httpsPort } = await server.start();
      const url = `https://127.0.0.1:${httpsPort}/ca.pem`;
      const oldCa = readFileSync(join(dir, 'tls', 'ca.pem'), 'utf8');
      expect(await statusOver(url, oldCa)).toMatchObject({ status: 200 });
      // What `ca rotate` does: another authority object over the same folder.
      const newCa = await new LocalAuthority(join(dir, 'tls')).rotate();
      let outcome = await statusOver(url, newCa);
      for (let tries = 0; tries < 50 && !('status' in outcome); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        outcome = await statusOver(url, newCa);
      }
      // Before the check compared the authority, the names were the same and nothing was reissued.
      expect(outcome).toMatchObject({ status: 200 });
    } finally {
      await server.stop();
      core.close();
    }
  });
});
