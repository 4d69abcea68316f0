import { X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { LocalAuthority } from '../core/tls/authority.js';
import type { CliOptions } from './commands.js';
import { databasePath } from './options.js';

/** What `ca show` and `ca rotate` print: where the certificate is, and what a phone shows of it. */
function describe(dir: string, pem: string): { certificate: string; sha256: string; notAfter: string } {
  const cert = new X509Certificate(pem);
  return { certificate: join(dir, 'ca.pem'), sha256: cert.fingerprint256, notAfter: new Date(cert.validTo).toISOString() };
}

/**
 * `ca show|rotate`: the data folder's certificate authority (main/core/tls/authority.ts), read
 * without opening the database. A running listener takes a rotated authority's certificate at its
 * next certificate check (docs/devices.md).
 */
export async function runCaCommand(sub: string | undefined, options: CliOptions): Promise<number> {
  const tlsDir = join(databasePath(options).dir, 'tls');
  const authority = new LocalAuthority(tlsDir);
  switch (sub) {
    case 'show':
      console.log(JSON.stringify(describe(tlsDir, await authority.certificatePem()), null, 2));
      return 0;
    case 'rotate':
      console.log(JSON.stringify(describe(tlsDir, await authority.rotate()), null, 2));
      console.error('A new certificate authority replaces the old: install its certificate on every phone again (the listener serves it at /ca.pem).');
      return 0;
    default:
      throw new Error(`unknown ca command ${sub ?? '(none)'}; use show or rotate`);
  }
}
