import { X509Certificate } from 'node:crypto';
import { consoleAddress, consoleOptions, fixedListener } from '../app/console.js';
import { SyncAgent } from '../sync-client/agent.js';
import { liveConsoleToken } from '../app/console-token.js';
import { startHost } from '../app/host.js';
import { hostLogger, logFormatOf } from '../app/host-log.js';
import { ensureRenderer } from '../build/renderer.js';
import { offlineLoadStats } from '../core/geocode/index.js';
import { createCore } from '../core/service.js';
import { reachableAddresses } from '../http/listener-control.js';
import { ONBOARDING_PATHS } from '../http/onboarding.js';
import { ApiServer } from '../http/server.js';
import { dotLocal, LocalNameAdvertiser, MDNS_INTERFACES_ENV } from '../http/mdns.js';
import { parseFaultRule } from '../../shared/faults.js';
import type { RequestLogEntry } from '../http/server.js';
import { Inspector } from '../http/inspector/inspector.js';
import type { CliOptions } from './commands.js';
import { databasePath, parsePort, parsePositive } from './options.js';
import { describeLimits, parseRateLimits } from './rate-limits.js';
import { bufferedRequestLog } from './request-log.js';
import { ANY_ORIGIN, ANY_ORIGIN_WARNING, corsOrigins } from '../../shared/cors.js';

/** The --cors origins, each checked as the Listener panel checks them; a malformed one stops the start. */
function parseCorsOrigins(texts: string[]): string[] {
  const parsed = corsOrigins.safeParse(texts);
  if (parsed.success) return parsed.data;
  throw new Error(`--cors: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
}

export const DEFAULT_PORT = 8080;

const hostForUrl = (host: string): string => (host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host);

/**
 * Serves the API, and the admin UI behind the data folder's console token (built first when it
 * is missing or stale, as `npm start` does), until SIGINT/SIGTERM; then closes the listener and
 * the database cleanly.
 */
export async function runServe(options: CliOptions): Promise<number> {
  const limits = parseRateLimits(options['rate-limit'] ?? []);
  const cors = parseCorsOrigins(options.cors ?? []);
  const faults = (options.fault ?? []).map((text) => {
    try {
      return parseFaultRule(text);
    } catch (error) {
      throw new Error(`--fault: ${(error as Error).message}`, { cause: error });
    }
  });
  const { dir, file } = databasePath(options);
  const token = liveConsoleToken(dir);
  ensureRenderer();
  const caching = options['no-reply-cache'] !== true;
  const core = createCore({
    file,
    limits,
    replyCache: caching,
    geocoding: {
      ...(options['nominatim-url'] ? { nominatimUrl: options['nominatim-url'] } : {}),
      ...(options['geocode-timeout'] ? { timeoutMs: parsePositive(options['geocode-timeout'], '--geocode-timeout') } : {}),
    },
  });
  const host = options.host ?? '127.0.0.1';
  const port = parsePort(options.port, DEFAULT_PORT);
  const httpsPort = options['https-port'] === undefined ? undefined : parsePort(options['https-port'], 0, '--https-port');
  let boundPort = port;
  let boundHttpsPort: number | undefined;
  let caFingerprint: string | undefined;
  const reach = host === '::' ? '0.0.0.0' : host;
  let listening = false;
  const inspector = new Inspector(() => (listening ? `http://${hostForUrl(host)}:${boundPort}` : undefined), { enabled: options['no-inspector'] !== true, folder: dir });
  const listener = fixedListener(() => ({
    enabled: true,
    port: boundPort,
    scope: host === '127.0.0.1' || host === 'localhost' || host === '::1' ? 'local' : 'lan',
    httpsPort: boundHttpsPort ?? null,
    state: 'listening',
    addresses: [...reachableAddresses(reach, boundPort), ...(boundHttpsPort === undefined ? [] : reachableAddresses(reach, boundHttpsPort, 'https'))],
    error: null,
    corsOrigins: cors,
    faults: faults.map((r) => r.text),
    ...(advertiser?.name === undefined ? {} : { mdnsName: advertiser.name, mdnsAnnounced: advertiser.announced }),
    ...(caFingerprint === undefined ? {} : { caFingerprint }),
    pagePath: ONBOARDING_PATHS.besideConsole,
  }), async () => {
    const pem = await core.tls?.rotate();
    if (pem !== undefined) caFingerprint = new X509Certificate(pem).fingerprint256;
    await server.refreshCertificate();
  }, inspector);
  const format = logFormatOf(options['log-format'], 'pretty');
  const logger = hostLogger({ format });
  const localName = core.settings.localName();
  // Only on every interface: the name resolves to each of this computer's addresses.
  const advertiser =
    reach === '0.0.0.0' && options['no-mdns'] !== true
      ? new LocalNameAdvertiser({ onError: (e) => logger.warn({ err: e }, 'the .local name could not be announced on the local network') })
      : undefined;
  // What a person starting it reads; as JSON lines, the same through the log.
  const say = (line: string): void => (format === 'json' ? logger.info(line) : console.log(line));
  const sync = new SyncAgent(core.syncSide, dir, { auto: true });
  const consoleOpts = consoleOptions(core, listener, (e) => logger.error({ err: e }, 'a console operation failed'), token, sync);
  const server = new ApiServer(core, {
    host,
    port,
    console: consoleOpts,
    replyMemo: caching,
    cors: () => cors,
    localName: dotLocal(localName),
    // None given: no per-request check at all.
    ...(faults.length > 0 ? { faults: () => faults } : {}),
    inspector: inspector.ring,
    ...(core.tls ? { tls: { authority: core.tls, httpsPort } } : {}),
  });
  // Never the query string, where tokens travel, nor a body: the inspector's list's fields (its
  // time is the line's own, pino's `time`, when the request was answered).
  const json = (r: RequestLogEntry): void =>
    logger.info({ address: r.address, scheme: r.scheme, method: r.method, path: r.path, operation: r.operation, status: r.status, ms: Number(r.ms.toFixed(1)), caller: r.caller }, 'request');
  server.on('request', format === 'json' ? json : bufferedRequestLog());
  server.on('error', (e) => logger.error({ err: e }, 'the API failed a request'));
  // Warmed up before the listener opens (app/host.ts): the offline geocoder is loaded by then.
  const running = await startHost({
    core,
    logger,
    sampleMap: true,
    sync,
    open: async () => {
      const loaded = offlineLoadStats();
      if (loaded) say(`Offline geocoder: ${loaded.cities.toLocaleString('en')} places, loaded in ${loaded.ms} ms`);
      try {
        const started = await server.start();
        boundPort = started.port;
        boundHttpsPort = started.httpsPort;
        const pem = boundHttpsPort === undefined ? undefined : await core.tls?.certificatePem();
        if (pem !== undefined) caFingerprint = new X509Certificate(pem).fingerprint256;
        listening = true;
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' && httpsPort !== undefined && (error as { httpsPort?: unknown }).httpsPort === httpsPort) {
          throw new Error(`port ${httpsPort} is already in use; pick another with --https-port`, { cause: error });
        }
        if (code === 'EADDRINUSE') throw new Error(`port ${port} is already in use; pick another with --port`, { cause: error });
        throw error;
      }
      await advertiser?.advertise({ name: localName, port: boundPort, httpsPort: boundHttpsPort });
    },
    close: async () => {
      listening = false;
      inspector.ring.release();
      await advertiser?.stop();
      await server.stop();
    },
  });
  const origin = `http://${hostForUrl(host)}:${boundPort}`;
  say(`Data: ${dir}`);
  say(`Rate limits: ${describeLimits(limits)}`);
  if (cors.length > 0) say(`CORS: pages of ${cors.join(', ')} may call the API from a browser`);
  if (cors.includes(ANY_ORIGIN)) say(`Warning: ${ANY_ORIGIN_WARNING}`);
  if (faults.length > 0) say(`Faults on purpose: ${faults.map((r) => r.text).join('; ')}`);
  say(`API listening on ${origin}/1/`);
  if (boundHttpsPort !== undefined) say(`API listening on https://${hostForUrl(host)}:${boundHttpsPort}/1/ (to trust it on a phone: ${origin}/connect)`);
  if (advertiser && !advertiser.announced) say(`Not announced by name: ${MDNS_INTERFACES_ENV} names no network interface of this computer`);
  else if (advertiser) say(`On the local network as ${dotLocal(localName)} (mDNS): http://${dotLocal(localName)}:${boundPort}/1/${boundHttpsPort === undefined ? '' : `, https://${dotLocal(localName)}:${boundHttpsPort}/1/`}`);
  // A log collector keeps what it is given: the token stays out of JSON lines.
  say(format === 'json' ? `Admin UI: ${origin}/ (its token is in ${dir}/console-token)` : `Admin UI: ${consoleAddress(origin, token())}`);
  if (!['127.0.0.1', 'localhost', '::1'].includes(host)) {
    say('Note: the admin UI is also reachable from the network, over plain HTTP; its token is its only protection.');
  }
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await running.stop();
  return 0;
}
