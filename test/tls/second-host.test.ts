import { execFile, spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ListenerStatus } from '../../shared/contract.js';
import { ADDRESS_CHECK_MS } from '../../main/http/addresses.js';
import { ListenerControl } from '../../main/http/listener-control.js';
import { root } from '../support/child-server.js';
import { freePort } from '../support/free-port.js';
import { startHttpsListener, type HttpsListener } from './listener.js';

/**
 * A phone on the LAN, played by a network namespace joined to this host by a veth pair on a
 * private /29: it fetches the authority's certificate over plain HTTP from the host's address,
 * then calls the API over HTTPS trusting it, and is refused without it; it sees the certificate
 * follow an address the host gains; it finds the listener's `.local` name by multicast DNS and
 * calls the API by that name; it hears the name's goodbye when the listener leaves the network.
 */
const run = promisify(execFile);
const COMMAND_TIMEOUT_MS = 15_000;
/** How long the phone listens for mDNS answers. */
const MDNS_WAIT_MS = 5000;
/** `serve` builds the admin UI first when it is stale. */
const SERVE_START_MS = 60_000;

const why = ((): string | undefined => {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'making a network namespace needs root';
  if (spawnSync('ip', ['-V'], { timeout: 5000 }).status !== 0) return 'the ip command (iproute2) is missing';
  return undefined;
})();
if (why) console.warn(`skipped: the second-host HTTPS test: ${why}`);

// Unique per run, within the 15 characters of an interface name; 10.214.x.0/29 is private.
const tag = `${process.pid % 100_000}`;
const NS = `poimdns-${tag}`;
const [HOST_IF, NS_IF] = [`vpmdh${tag}`, `vpmdn${tag}`];
const subnet = `10.214.${process.pid % 250}`;
const [HOST_IP, NS_IP, GAINED_IP] = [`${subnet}.1`, `${subnet}.2`, `${subnet}.3`];

const ip = (...args: string[]) => run('ip', args, { timeout: COMMAND_TIMEOUT_MS });
const inNamespace = (...args: string[]) => run('ip', ['netns', 'exec', NS, ...args], { timeout: COMMAND_TIMEOUT_MS, cwd: root });

/**
 * Run inside the namespace: GET a URL with Node; `ca` a CA file to trust; `out` where to save the
 * body; `address` the address to connect to for the URL's name (as a resolver would give it);
 * `verifyAs` the name the certificate is checked against instead of the URL's. Prints status and
 * body, or the error's code.
 */
const CLIENT = `
const o = JSON.parse(process.argv[1]);
const fs = require('node:fs');
const tls = require('node:tls');
const lib = require(o.url.startsWith('https:') ? 'node:https' : 'node:http');
const options = { timeout: 10000 };
if (o.ca) options.ca = fs.readFileSync(o.ca);
// Answered a turn later, as a resolver does: Node 20 fails on a connect refused within the lookup's call.
if (o.address) options.lookup = (host, opts, cb) => setImmediate(() => (opts && opts.all ? cb(null, [{ address: o.address, family: 4 }]) : cb(null, o.address, 4)));
if (o.verifyAs) options.checkServerIdentity = (host, cert) => tls.checkServerIdentity(o.verifyAs, cert);
const req = lib.get(o.url, options, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    if (o.out) fs.writeFileSync(o.out, Buffer.concat(chunks));
    console.log(JSON.stringify({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
  });
});
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', (e) => console.log(JSON.stringify({ error: e.code || e.message })));
`;

/**
 * Run inside the namespace: as a phone's resolver and service browser do, asks by multicast DNS
 * for NAME.local's addresses (A) and browses for the service NAME of a type (_https._tcp).
 * Prints what it found within MDNS_WAIT_MS.
 */
const RESOLVE = `
const [name, type, waitMs] = process.argv.slice(1);
const { Bonjour } = require('bonjour-service');
const mdns = require('multicast-dns')();
const host = name + '.local';
const found = {};
const bonjour = new Bonjour();
let asking;
const done = () => {
  clearTimeout(timer);
  clearInterval(asking);
  console.log(JSON.stringify(found));
  browser.stop();
  bonjour.destroy();
  mdns.destroy();
};
const timer = setTimeout(done, Number(waitMs));
const browser = bonjour.find({ type }, (s) => {
  if (s.name !== name) return;
  found.service = { name: s.name, host: s.host, port: s.port, txt: s.txt };
  if (found.addresses) done();
});
mdns.on('response', (r) => {
  if (found.addresses) return;
  const a = r.answers.filter((x) => x.type === 'A' && x.name.toLowerCase() === host && x.ttl > 0).map((x) => x.data);
  if (a.length === 0) return;
  found.addresses = a;
  if (found.service) done();
});
const ask = () => mdns.query(host, 'A');
mdns.on('ready', () => { ask(); asking = setInterval(ask, 1000); });
`;

/** Run inside the namespace: listens for NAME.local's goodbye (its A records with TTL 0); prints "ready", then whether it came. */
const GOODBYE = `
const [name, waitMs] = process.argv.slice(1);
const mdns = require('multicast-dns')();
const host = name + '.local';
const end = (goodbye) => { clearTimeout(timer); console.log(JSON.stringify({ goodbye })); mdns.destroy(); };
const timer = setTimeout(() => end(false), Number(waitMs));
mdns.on('response', (r) => {
  if (r.answers.some((x) => x.type === 'A' && x.name.toLowerCase() === host && x.ttl === 0)) end(true);
});
mdns.on('ready', () => console.log('ready'));
`;

interface Fetched {
  status?: number;
  body?: string;
  error?: string;
}

interface Resolved {
  addresses?: string[];
  service?: { name: string; host: string; port: number; txt?: Record<string, string> };
}

describe.skipIf(why !== undefined)('a second host on a private network', () => {
  let listener: HttpsListener | undefined;
  let control: ListenerControl | undefined;

  const fetchFromNamespace = async (options: { url: string; ca?: string; out?: string; address?: string; verifyAs?: string }): Promise<Fetched> => {
    const { stdout } = await inNamespace(process.execPath, '-e', CLIENT, JSON.stringify(options));
    return JSON.parse(stdout) as Fetched;
  };
  const resolveFromNamespace = async (name: string, waitMs = MDNS_WAIT_MS): Promise<Resolved> =>
    JSON.parse((await inNamespace(process.execPath, '-e', RESOLVE, name, 'https', String(waitMs))).stdout) as Resolved;
  /** Listens in the namespace for NAME.local's goodbye while `leave` runs; true when it came. */
  const goodbyeWhile = async (name: string, leave: () => Promise<unknown>): Promise<boolean> => {
    const watcher = spawn('ip', ['netns', 'exec', NS, process.execPath, '-e', GOODBYE, name, String(MDNS_WAIT_MS)], { cwd: root, timeout: COMMAND_TIMEOUT_MS });
    const heard = new Promise<string>((resolve) => {
      let text = '';
      watcher.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
      watcher.on('close', () => resolve(text));
    });
    await new Promise<void>((resolve) => watcher.stdout.once('data', () => resolve()));
    await leave();
    return (await heard).includes('"goodbye":true');
  };
  const caFile = (): string => join(listener?.dir ?? '', 'phone-ca.pem');
  /** The authority's certificate as the first test downloads it, for tests that may run alone. */
  const authorityFile = (): string => join(listener?.dir ?? '', 'tls', 'ca.pem');

  beforeAll(async () => {
    await ip('netns', 'add', NS);
    await ip('link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF);
    await ip('link', 'set', NS_IF, 'netns', NS);
    await ip('addr', 'add', `${HOST_IP}/29`, 'dev', HOST_IF);
    await ip('link', 'set', HOST_IF, 'up');
    await inNamespace('ip', 'addr', 'add', `${NS_IP}/29`, 'dev', NS_IF);
    await inNamespace('ip', 'link', 'set', NS_IF, 'up');
    await inNamespace('ip', 'link', 'set', 'lo', 'up');
    // The phone's multicast (mDNS queries) leaves by its one link, as on a phone's Wi-Fi: with no
    // route for it (no default route either), its first queries were lost (found in 8 s, not 4).
    await inNamespace('ip', 'route', 'add', '224.0.0.0/4', 'dev', NS_IF);
    // The address exists before the listener starts: its certificate lists it.
    listener = await startHttpsListener('0.0.0.0');
  }, 60_000);

  afterAll(async () => {
    await control?.stop();
    await listener?.close();
    // Deleting one end of the pair deletes both; each step runs even when one before it failed.
    await ip('link', 'del', HOST_IF).catch(() => undefined);
    await ip('netns', 'del', NS).catch(() => undefined);
    const left = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8', timeout: 5000 }).stdout;
    if (left.includes(NS)) console.warn(`the namespace ${NS} could not be removed`);
  }, 30_000);

  it('trusts the listener over HTTPS once it has the certificate from the listener’s page', async () => {
    if (!listener) throw new Error('no listener');
    const download = await fetchFromNamespace({ url: `http://${HOST_IP}:${listener.port}/ca.pem`, out: caFile() });
    expect(download.status).toBe(200);
    expect(download.body).toContain('BEGIN CERTIFICATE');

    const url = `https://${HOST_IP}:${listener.httpsPort}${listener.poiPath}`;
    const trusted = await fetchFromNamespace({ url, ca: caFile() });
    expect(trusted.status).toBe(200);
    expect(JSON.parse(trusted.body ?? '{}')).toMatchObject({ name: 'Sol' });

    const untrusted = await fetchFromNamespace({ url });
    expect(untrusted.error).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  }, 60_000);

  it('follows an address the computer gains while listening, without a restart', async () => {
    if (!listener) throw new Error('no listener');
    const path = listener.poiPath;
    // Before: the certificate does not name the address (checked through the one it has).
    const before = await fetchFromNamespace({ url: `https://${HOST_IP}:${listener.httpsPort}${path}`, ca: authorityFile(), verifyAs: GAINED_IP });
    expect(before.error).toBe('ERR_TLS_CERT_ALTNAME_INVALID');

    await ip('addr', 'add', `${GAINED_IP}/29`, 'dev', HOST_IF);
    let after: Fetched = {};
    for (const deadline = Date.now() + ADDRESS_CHECK_MS + 10_000; after.status !== 200 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      after = await fetchFromNamespace({ url: `https://${GAINED_IP}:${listener.httpsPort}${path}`, ca: authorityFile() });
    }
    expect(after.status).toBe(200);
  }, 60_000);

  it('is found by its .local name over multicast DNS, and answers the API by that name', async () => {
    if (!listener) throw new Error('no listener');
    control = new ListenerControl(listener.core);
    const status: ListenerStatus = await control.configure({ enabled: true, port: await freePort(), scope: 'lan', httpsPort: await freePort() });
    const local = status.mdnsName ?? '';
    expect(local).toMatch(/^poi-[0-9a-f]{6}\.local$/);
    // The veth is one of the interfaces vitest.config.ts lets it announce on.
    expect(status.mdnsAnnounced).toBe(true);
    const name = local.slice(0, -'.local'.length);

    const resolved = await resolveFromNamespace(name);
    if (resolved.addresses === undefined) throw new Error(`multicast DNS found nothing from the namespace: ${JSON.stringify(resolved)}`);
    expect(resolved.addresses).toContain(HOST_IP);
    expect(resolved.service).toMatchObject({ name, host: local, port: status.httpsPort, txt: { path: '/1/' } });

    // As a phone does, try each address it was given until one connects.
    const url = `https://${local}:${status.httpsPort}${listener.poiPath}`;
    let trusted: Fetched = {};
    for (const address of resolved.addresses) {
      trusted = await fetchFromNamespace({ url, ca: authorityFile(), address });
      if (trusted.status !== undefined || trusted.error === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE') break;
    }
    expect(trusted.status).toBe(200);
    expect(JSON.parse(trusted.body ?? '{}')).toMatchObject({ name: 'Sol' });
    expect((await fetchFromNamespace({ url, address: HOST_IP })).error).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');

    // Back to "This computer only": a goodbye, then no answer.
    const leaves = goodbyeWhile(name, () => (control as ListenerControl).configure({ enabled: true, port: status.port, scope: 'local', httpsPort: status.httpsPort }));
    expect(await leaves).toBe(true);
    expect(control.status().mdnsName).toBeUndefined();
    expect(await resolveFromNamespace(name, 2000)).toEqual({});
  }, 60_000);

  it('is announced by serve --host 0.0.0.0 until it stops, and not with --no-mdns', async () => {
    const data = mkdtempSync(join(tmpdir(), 'poi-serve-mdns-'));
    const children: ChildProcessWithoutNullStreams[] = [];
    /** Starts serve; answers what it printed up to its admin UI line, and its exit. */
    const serve = async (...flags: string[]): Promise<{ output: string; exited: Promise<number | null>; child: ChildProcessWithoutNullStreams }> => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'main/cli.ts', 'serve', '--data', data, '--host', '0.0.0.0', ...flags], { cwd: root });
      children.push(child);
      const killer = setTimeout(() => child.kill('SIGKILL'), SERVE_START_MS + 30_000);
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code))).finally(() => clearTimeout(killer));
      const output = await new Promise<string>((resolve, reject) => {
        let text = '';
        child.stdout.on('data', (c: Buffer) => {
          text += c.toString();
          if (text.includes('Admin UI')) resolve(text);
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${text}`)));
      });
      return { output, exited, child };
    };
    try {
      const [port, httpsPort] = [await freePort(), await freePort()];
      const first = await serve('--port', String(port), '--https-port', String(httpsPort));
      const said = /On the local network as (poi-[0-9a-f]{6})\.local \(mDNS\): (.*)/.exec(first.output);
      if (!said) throw new Error(`serve did not say its .local name: ${first.output}`);
      const name = said[1] ?? '';
      expect(said[2]).toBe(`http://${name}.local:${port}/1/, https://${name}.local:${httpsPort}/1/`);
      const resolved = await resolveFromNamespace(name);
      expect(resolved.addresses).toContain(HOST_IP);
      expect(resolved.service).toMatchObject({ name, port: httpsPort });

      const stops = goodbyeWhile(name, async () => {
        first.child.kill('SIGTERM');
        expect(await first.exited).toBe(0);
      });
      expect(await stops).toBe(true);

      const second = await serve('--port', String(port), '--no-mdns');
      expect(second.output).not.toContain('On the local network');
      expect(await resolveFromNamespace(name, 2000)).toEqual({});
      second.child.kill('SIGTERM');
      expect(await second.exited).toBe(0);
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(data, { recursive: true, force: true });
    }
  }, 3 * SERVE_START_MS);
});
