import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalAuthority, listenerNames } from '../../main/core/tls/authority.js';

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
