import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from '@peculiar/x509';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalAuthority, MAX_SERVER_CERT_DAYS, RENEW_BEFORE_DAYS, listenerNames, namesOf } from '../../main/core/tls/authority.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const hasOpenssl = spawnSync('openssl', ['version'], { timeout: 5000 }).status === 0;

describe('the data folder’s certificate authority', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'poi-tls-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps both private keys readable by the owner alone', async () => {
    await new LocalAuthority(dir).serverCredentials(listenerNames(['192.168.1.20']));
    const keys = readdirSync(dir).filter((f) => f.endsWith('key.pem'));
    expect(keys.sort()).toEqual(['ca-key.pem', 'server-key.pem']);
    for (const key of keys) expect((statSync(join(dir, key)).mode & 0o777).toString(8)).toBe('600');
    expect(readdirSync(dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('issues a server certificate for every address and name, valid at most the limit', async () => {
    const now = Date.UTC(2026, 10, 27, 12);
    const names = listenerNames(['192.168.1.20', '10.0.0.7']);
    expect(names.ips).toEqual(['127.0.0.1', '::1', '192.168.1.20', '10.0.0.7']);
    expect(names.dns[0]).toBe('localhost');
    expect(names.dns.some((n) => n.endsWith('.local'))).toBe(true);
    const credentials = await new LocalAuthority(dir, () => now).serverCredentials(names);
    const cert = new X509Certificate(credentials.cert);
    const listed = await namesOf(credentials.cert);
    expect(listed.ips.sort()).toEqual([...names.ips].sort());
    expect(listed.dns.sort()).toEqual([...names.dns].sort());
    const days = (cert.notAfter.getTime() - cert.notBefore.getTime()) / DAY_MS;
    expect(days).toBeLessThanOrEqual(MAX_SERVER_CERT_DAYS);
    expect(cert.notBefore.getTime()).toBeLessThanOrEqual(now);
    expect(credentials.key).toContain('BEGIN PRIVATE KEY');
    expect(credentials.cert).not.toContain('PRIVATE');
  });

  it('is the same authority after a restart, and keeps the server certificate while nothing changed', async () => {
    const names = listenerNames(['192.168.1.20']);
    const first = new LocalAuthority(dir);
    const ca = await first.certificatePem();
    const served = await first.serverCredentials(names);
    const reopened = new LocalAuthority(dir);
    expect(await reopened.certificatePem()).toBe(ca);
    expect((await reopened.serverCredentials(names)).cert).toBe(served.cert);
  });

  it('issues again when the set of addresses changes', async () => {
    const authority = new LocalAuthority(dir);
    const before = await authority.serverCredentials(listenerNames(['192.168.1.20']));
    const after = await authority.serverCredentials(listenerNames(['192.168.1.20', '10.9.9.1']));
    expect(after.cert).not.toBe(before.cert);
    expect((await namesOf(after.cert)).ips).toContain('10.9.9.1');
    // The authority stays: a phone that trusts it keeps trusting the new certificate.
    expect(await new LocalAuthority(dir).certificatePem()).toBe(await authority.certificatePem());
  });

  it(`issues again within ${RENEW_BEFORE_DAYS} days of the end, not before`, async () => {
    let now = Date.UTC(2026, 0, 1);
    const authority = new LocalAuthority(dir, () => now);
    const names = listenerNames([]);
    const first = await authority.serverCredentials(names);
    now += (MAX_SERVER_CERT_DAYS - RENEW_BEFORE_DAYS - 2) * DAY_MS;
    expect((await authority.serverCredentials(names)).cert).toBe(first.cert);
    now += 3 * DAY_MS;
    const renewed = await authority.serverCredentials(names);
    expect(renewed.cert).not.toBe(first.cert);
    expect(renewed.notAfter.getTime()).toBeGreaterThan(now + (MAX_SERVER_CERT_DAYS - 1) * DAY_MS);
  });

  it.skipIf(!hasOpenssl)('gives a server certificate that openssl verifies against the authority', async () => {
    const authority = new LocalAuthority(dir);
    const credentials = await authority.serverCredentials(listenerNames(['192.168.1.20']));
    writeFileSync(join(dir, 'leaf.pem'), credentials.cert);
    const verify = spawnSync(
      'openssl',
      ['verify', '-CAfile', join(dir, 'ca.pem'), '-purpose', 'sslserver', '-verify_ip', '192.168.1.20', join(dir, 'leaf.pem')],
      { encoding: 'utf8', timeout: 10_000 },
    );
    expect(`${verify.stdout}${verify.stderr}`).toContain(': OK');
    expect(readFileSync(join(dir, 'ca.pem'), 'utf8')).toBe(await authority.certificatePem());
    // And not an address it was not issued for.
    const other = spawnSync('openssl', ['verify', '-CAfile', join(dir, 'ca.pem'), '-verify_ip', '192.168.1.21', join(dir, 'leaf.pem')], {
      encoding: 'utf8',
      timeout: 10_000,
    });
    expect(other.status).not.toBe(0);
  });
});

if (!hasOpenssl) console.log('authority.test.ts: openssl is not on this machine; its verification is skipped');
