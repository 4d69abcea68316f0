import { randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';
import { PRIVATE_FILE_MODE } from '../store/database-file.js';

/**
 * Longest validity of a server certificate that Apple's platforms accept (398 days since
 * September 2020); a day less, so that a clock a little ahead still accepts it.
 */
export const MAX_SERVER_CERT_DAYS = 397;
/** A server certificate this close to its end is issued again at the next start. */
export const RENEW_BEFORE_DAYS = 30;
/** The authority lives as long as a phone may keep trusting it. */
const CA_YEARS = 10;
/** A phone's clock a little behind still accepts a certificate issued just now. */
const BACKDATE_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const crypto = webcrypto as unknown as Crypto;

let loading: Promise<typeof X509> | undefined;
/** Loaded on first use, not with the core: about a second of a cold start that only HTTPS needs. */
const x509Library = (): Promise<typeof X509> => (loading ??= import('@peculiar/x509'));

/** The folder's files; the two keys are the owner's alone (0600) and never leave this module but to TLS. */
const FILES = { caKey: 'ca-key.pem', caCert: 'ca.pem', serverKey: 'server-key.pem', serverCert: 'server.pem' } as const;

/** Every name a server certificate is valid for: IP addresses and DNS names. */
export interface ServerNames {
  ips: string[];
  dns: string[];
}

/** What a TLS server is started with: its key and certificate (PEM); a device trusts the authority's. */
export interface ServerCredentials {
  key: string;
  cert: string;
  notAfter: Date;
}

/**
 * The names a listener on this computer can be reached by, given its LAN IPv4 addresses, and
 * `extraNames` it is known by besides (its `.local` name on the network, docs/devices.md).
 */
export function listenerNames(lanAddresses: readonly string[], extraNames: readonly string[] = []): ServerNames {
  const host = hostname().toLowerCase();
  // A DNS name takes letters, digits, hyphens and dots; a host name with anything else is left out.
  const dnsName = (name: string): boolean => /^[a-z0-9.-]+$/.test(name);
  const hostNames = dnsName(host) ? [host, host.endsWith('.local') ? host : `${host}.local`] : [];
  const extra = extraNames.map((n) => n.toLowerCase()).filter(dnsName);
  return { ips: unique(['127.0.0.1', '::1', ...lanAddresses]), dns: unique(['localhost', ...hostNames, ...extra]) };
}

const unique = (list: readonly string[]): string[] => [...new Set(list)];
export const sameNames = (a: ServerNames, b: ServerNames): boolean =>
  JSON.stringify([[...a.ips].sort(), [...a.dns].sort()]) === JSON.stringify([[...b.ips].sort(), [...b.dns].sort()]);

/** A positive serial number of 16 random bytes (RFC 5280: at most 20 octets, positive). */
const serial = (): string => {
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
};

/** A name for a distinguished name: what RFC 4514 would have to escape is dropped. */
const dnValue = (text: string): string => text.replace(/[^A-Za-z0-9 .-]/g, '');

/** Writes a file whole (a reader never sees half of it) with the given mode. */
function writeWhole(path: string, text: string, mode: number): void {
  const part = `${path}.part`;
  writeFileSync(part, text, { mode });
  chmodSync(part, mode);
  renameSync(part, path);
}

function keyPem(x509: typeof X509, der: ArrayBuffer): string {
  return x509.PemConverter.encode(der, 'PRIVATE KEY');
}

async function importKey(x509: typeof X509, pem: string): Promise<CryptoKey> {
  return crypto.subtle.importKey('pkcs8', x509.PemConverter.decodeFirst(pem), KEY_ALGORITHM, false, ['sign']);
}

async function newKeys(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey(KEY_ALGORITHM, true, ['sign', 'verify']);
}

/** The names a certificate (PEM) lists in its subjectAltName. */
export async function namesOf(pem: string): Promise<ServerNames> {
  const x509 = await x509Library();
  const san = new x509.X509Certificate(pem).getExtension(x509.SubjectAlternativeNameExtension);
  const names = san?.names.toJSON() ?? [];
  return { ips: names.filter((n) => n.type === 'ip').map((n) => n.value), dns: names.filter((n) => n.type === 'dns').map((n) => n.value) };
}

/**
 * The data folder's own certificate authority, made on first use, and the listener's server
 * certificate it signs. A phone that trusts the authority's certificate (served by the listener,
 * docs/devices.md) trusts every server certificate issued here, however the addresses change.
 * The private keys stay in the folder, mode 0600; nothing here logs.
 */
export class LocalAuthority {
  /** One issue at a time: two listeners starting together must not write the files at once. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly dir: string,
    private readonly now: () => number = Date.now,
  ) {}

  private path(file: keyof typeof FILES): string {
    return join(this.dir, FILES[file]);
  }

  private serially<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The certificate last read, and which file it was read from: another process may rotate it. */
  private known: { pem: string; ino: number; mtimeMs: number } | undefined;

  /**
   * The authority's certificate (PEM), made with its key on first use. Asked on every request for
   * /ca.pem and the phone page: answered from memory while the file is the one read (a flood of
   * them once read and parsed both keys each time, and slowed the whole API).
   */
  certificatePem(): Promise<string> {
    const known = this.known;
    if (known) {
      const now = statSync(this.path('caCert'), { throwIfNoEntry: false });
      if (now && now.ino === known.ino && now.mtimeMs === known.mtimeMs) return Promise.resolve(known.pem);
    }
    return this.serially(async () => {
      const pem = (await this.authority()).cert.toString('pem');
      const file = statSync(this.path('caCert'));
      this.known = { pem, ino: file.ino, mtimeMs: file.mtimeMs };
      return pem;
    });
  }

  private async authority(): Promise<{ cert: X509.X509Certificate; key: CryptoKey }> {
    const x509 = await x509Library();
    const [keyFile, certFile] = [this.path('caKey'), this.path('caCert')];
    if (existsSync(keyFile) && existsSync(certFile)) {
      const cert = new x509.X509Certificate(readFileSync(certFile, 'utf8'));
      if (cert.notAfter.getTime() > this.now()) return { cert, key: await importKey(x509, readFileSync(keyFile, 'utf8')) };
    }
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const keys = await newKeys();
    const notBefore = new Date(this.now() - BACKDATE_MS);
    const notAfter = new Date(notBefore);
    notAfter.setUTCFullYear(notAfter.getUTCFullYear() + CA_YEARS);
    const cert = await x509.X509CertificateGenerator.createSelfSigned(
      {
        serialNumber: serial(),
        // To the minute: a phone lists authorities by name, and a rotated one must not look like the old.
        name: `CN=${dnValue(`POI admin local CA ${hostname()} ${new Date(this.now()).toISOString().slice(0, 16).replace('T', ' ').replace(':', '.')}`)}, O=POI admin`,
        notBefore,
        notAfter,
        keys,
        signingAlgorithm: SIGNING,
        extensions: [
          new x509.BasicConstraintsExtension(true, 0, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
        ],
      },
      crypto,
    );
    // The key first: a certificate on disk always has its key beside it.
    writeWhole(keyFile, keyPem(x509, await crypto.subtle.exportKey('pkcs8', keys.privateKey)), PRIVATE_FILE_MODE);
    writeWhole(certFile, cert.toString('pem'), 0o644);
    return { cert, key: keys.privateKey };
  }

  /** Whether a server certificate ending then is to be issued again: within RENEW_BEFORE_DAYS of its end, by this authority's clock. */
  renewalDue(notAfter: Date): boolean {
    return notAfter.getTime() - this.now() <= RENEW_BEFORE_DAYS * DAY_MS;
  }

  /**
   * A server certificate for exactly these names, signed by the authority: the one on disk while
   * it lists the same names, was signed by this authority and has more than RENEW_BEFORE_DAYS
   * left; else a new one (new key too).
   */
  serverCredentials(names: ServerNames): Promise<ServerCredentials> {
    return this.serially(async () => {
      const x509 = await x509Library();
      const ca = await this.authority();
      const [keyFile, certFile] = [this.path('serverKey'), this.path('serverCert')];
      if (existsSync(keyFile) && existsSync(certFile)) {
        const current = new x509.X509Certificate(readFileSync(certFile, 'utf8'));
        if (!this.renewalDue(current.notAfter) && sameNames(await namesOf(current.toString('pem')), names) && (await current.verify({ publicKey: ca.cert.publicKey, signatureOnly: true }, crypto))) {
          return { key: readFileSync(keyFile, 'utf8'), cert: current.toString('pem'), notAfter: current.notAfter };
        }
      }
      const keys = await newKeys();
      const notBefore = new Date(this.now() - BACKDATE_MS);
      const notAfter = new Date(notBefore.getTime() + MAX_SERVER_CERT_DAYS * DAY_MS);
      const cert = await x509.X509CertificateGenerator.create(
        {
          serialNumber: serial(),
          subject: `CN=${dnValue(names.dns.find((n) => n !== 'localhost') ?? 'localhost')}`,
          issuer: ca.cert.subject,
          notBefore,
          notAfter,
          publicKey: keys.publicKey,
          signingKey: ca.key,
          signingAlgorithm: SIGNING,
          extensions: [
            new x509.BasicConstraintsExtension(false, undefined, true),
            new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
            new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
            new x509.SubjectAlternativeNameExtension([
              ...names.dns.map((value) => ({ type: 'dns' as const, value })),
              ...names.ips.map((value) => ({ type: 'ip' as const, value })),
            ]),
            await x509.SubjectKeyIdentifierExtension.create(keys.publicKey, false, crypto),
            await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey, false, crypto),
          ],
        },
        crypto,
      );
      const key = keyPem(x509, await crypto.subtle.exportKey('pkcs8', keys.privateKey));
      writeWhole(keyFile, key, PRIVATE_FILE_MODE);
      writeWhole(certFile, cert.toString('pem'), 0o644);
      return { key, cert: cert.toString('pem'), notAfter };
    });
  }

  /**
   * A new authority (new key, new certificate) in place of the old, for a key that may have
   * leaked: every phone must install the new certificate, and the server certificate is issued
   * again at its next request. Returns the new authority's certificate (PEM).
   */
  rotate(): Promise<string> {
    return this.serially(async () => {
      // The server's files first: one left without its authority would be refused at the next issue anyway.
      for (const file of ['serverCert', 'serverKey', 'caCert', 'caKey'] as const) rmSync(this.path(file), { force: true });
      return (await this.authority()).cert.toString('pem');
    });
  }
}
