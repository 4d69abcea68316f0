import { execFile, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpsListener, type HttpsListener } from './listener.js';

/**
 * A phone on the LAN, played by a network namespace joined to this host by a veth pair on a
 * private /30: it fetches the authority's certificate over plain HTTP from the host's address,
 * then calls the API over HTTPS trusting it, and is refused without it.
 */
const run = promisify(execFile);
const COMMAND_TIMEOUT_MS = 15_000;

const why = ((): string | undefined => {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'making a network namespace needs root';
  if (spawnSync('ip', ['-V'], { timeout: 5000 }).status !== 0) return 'the ip command (iproute2) is missing';
  return undefined;
})();
if (why) console.warn(`skipped: the second-host HTTPS test: ${why}`);

// Unique per run, within the 15 characters of an interface name; 10.213.x.0/30 is private.
const tag = `${process.pid % 100_000}`;
const NS = `poi-tls-${tag}`;
const [HOST_IF, NS_IF] = [`vpoih${tag}`, `vpoin${tag}`];
const subnet = `10.213.${process.pid % 250}`;
const [HOST_IP, NS_IP] = [`${subnet}.1`, `${subnet}.2`];

const ip = (...args: string[]) => run('ip', args, { timeout: COMMAND_TIMEOUT_MS });
const inNamespace = (...args: string[]) => run('ip', ['netns', 'exec', NS, ...args], { timeout: COMMAND_TIMEOUT_MS });

/** Run inside the namespace: GET a URL with Node, trusting the CA file given (if any); prints status and body, or the error's code. */
const CLIENT = `
const [url, caFile, out] = process.argv.slice(1);
const fs = require('node:fs');
const lib = require(url.startsWith('https:') ? 'node:https' : 'node:http');
const req = lib.get(url, { ...(caFile ? { ca: fs.readFileSync(caFile) } : {}), timeout: 10000 }, (res) => {
  const chunks = [];
  res.on('data', (c) => chunks.push(c));
  res.on('end', () => {
    if (out) fs.writeFileSync(out, Buffer.concat(chunks));
    console.log(JSON.stringify({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
  });
});
req.on('timeout', () => req.destroy(new Error('timed out')));
req.on('error', (e) => console.log(JSON.stringify({ error: e.code || e.message })));
`;

describe.skipIf(why !== undefined)('a second host on a private network', () => {
  let listener: HttpsListener | undefined;

  const fetchFromNamespace = async (url: string, caFile = '', out = ''): Promise<{ status?: number; body?: string; error?: string }> => {
    const { stdout } = await inNamespace(process.execPath, '-e', CLIENT, url, caFile, out);
    return JSON.parse(stdout) as { status?: number; body?: string; error?: string };
  };

  beforeAll(async () => {
    await ip('netns', 'add', NS);
    await ip('link', 'add', HOST_IF, 'type', 'veth', 'peer', 'name', NS_IF);
    await ip('link', 'set', NS_IF, 'netns', NS);
    await ip('addr', 'add', `${HOST_IP}/30`, 'dev', HOST_IF);
    await ip('link', 'set', HOST_IF, 'up');
    await inNamespace('ip', 'addr', 'add', `${NS_IP}/30`, 'dev', NS_IF);
    await inNamespace('ip', 'link', 'set', NS_IF, 'up');
    await inNamespace('ip', 'link', 'set', 'lo', 'up');
    // The address exists before the listener starts: its certificate lists it.
    listener = await startHttpsListener('0.0.0.0');
  }, 60_000);

  afterAll(async () => {
    await listener?.close();
    // Deleting one end of the pair deletes both; each step runs even when one before it failed.
    await ip('link', 'del', HOST_IF).catch(() => undefined);
    await ip('netns', 'del', NS).catch(() => undefined);
    const left = spawnSync('ip', ['netns', 'list'], { encoding: 'utf8', timeout: 5000 }).stdout;
    if (left.includes(NS)) console.warn(`the namespace ${NS} could not be removed`);
  }, 30_000);

  it('trusts the listener over HTTPS once it has the certificate from the listener’s page', async () => {
    if (!listener) throw new Error('no listener');
    const caFile = join(listener.dir, 'phone-ca.pem');
    const download = await fetchFromNamespace(`http://${HOST_IP}:${listener.port}/ca.pem`, '', caFile);
    expect(download.status).toBe(200);
    expect(download.body).toContain('BEGIN CERTIFICATE');

    const url = `https://${HOST_IP}:${listener.httpsPort}${listener.poiPath}`;
    const trusted = await fetchFromNamespace(url, caFile);
    expect(trusted.status).toBe(200);
    expect(JSON.parse(trusted.body ?? '{}')).toMatchObject({ name: 'Sol' });

    const untrusted = await fetchFromNamespace(url);
    expect(untrusted.error).toBe('UNABLE_TO_VERIFY_LEAF_SIGNATURE');
  }, 60_000);
});
