import { X509Certificate } from 'node:crypto';
import type { ListenerStatus } from '../../shared/contract.js';
import { parseFaultRule, type FaultRule } from '../../shared/faults.js';
import { ServiceError } from '../core/errors.js';
import type { Core } from '../core/service.js';
import type { ListenerSettings } from '../core/settings/settings.js';
import { reachableAddresses } from './addresses.js';
import { dotLocal, LocalNameAdvertiser } from './mdns.js';
import { ONBOARDING_PATHS } from './onboarding.js';
import { portHolder } from './port-holder.js';
import { ApiServer, type RequestLogEntry } from './server.js';
import { Inspector } from './inspector/inspector.js';

const fingerprintOf = (pem: string): string => new X509Certificate(pem).fingerprint256;

const HOSTS = { local: '127.0.0.1', lan: '0.0.0.0' } as const;

export { reachableAddresses };

/** A server that listens, on these ports. */
interface Started {
  api: ApiServer;
  port: number;
  httpsPort?: number | undefined;
}

/** The HTTPS port a failed `listen` was for, when that is the one that failed (server.ts). */
const portOf = (error: unknown): number | undefined =>
  error instanceof Error && 'httpsPort' in error && typeof error.httpsPort === 'number' ? error.httpsPort : undefined;

/** Why a listener could not start, as the errno of its `listen`. */
const errnoOf = (error: unknown): string | undefined =>
  error instanceof Error && 'code' in error && typeof error.code === 'string' ? error.code : undefined;

/**
 * The API listener the console turns on and off: its settings live in the database, so the
 * next start restores them. A new configuration replaces the running listener only once it
 * listens: one that fails leaves the working listener and the saved settings as they were, and
 * is answered as an error (PORT_UNAVAILABLE) that says which port and why.
 */
export class ListenerControl {
  private server: ApiServer | undefined;
  /** What the running server was started with. */
  private running: ListenerSettings | undefined;
  private state: ListenerStatus['state'] = 'stopped';
  private error: string | null = null;
  private boundPort = 0;
  /** The origins allowed to call the API from a browser, read by the running server on each request. */
  private corsOrigins: readonly string[] = [];
  /** The fault rules on purpose, read by the running server on each request: a change applies to the next one. */
  private faults: readonly FaultRule[] = [];
  private boundHttpsPort: number | undefined;
  /** How many times stop() was called: a configure that started before the last one does not apply. */
  private stops = 0;
  /** Of the data folder's authority, read when a listener starts and when the authority is replaced. */
  private caFingerprint: string | undefined;
  /** The `.local` name, announced while the listener is on the local network (mdns.ts). */
  private readonly advertiser = new LocalNameAdvertiser({ onError: (error) => console.error(`poi listener: the .local name could not be announced: ${error.message}`) });
  /** The request inspector's: one for the process, kept across the listeners it starts. */
  private readonly requests: Inspector;

  constructor(
    private readonly core: Core,
    private readonly onRequest: (entry: RequestLogEntry) => void = () => undefined,
    /** The port of this app's own admin console, to name it when it is the one in the way. */
    private readonly consolePort: () => number | undefined = () => undefined,
    /** The data folder, where the request inspector saves files (none: it does not). */
    folder?: string,
  ) {
    this.requests = new Inspector(() => (this.state === 'listening' ? `http://127.0.0.1:${this.boundPort}` : undefined), { folder });
  }

  inspector(): Inspector {
    return this.requests;
  }

  status(): ListenerStatus {
    const s = this.core.settings.listener();
    const listening = this.state === 'listening';
    const port = listening ? this.boundPort : s.port;
    const https = listening ? this.boundHttpsPort : undefined;
    return {
      ...s,
      state: this.state,
      addresses: listening ? [...reachableAddresses(HOSTS[s.scope], port), ...(https === undefined ? [] : reachableAddresses(HOSTS[s.scope], https, 'https'))] : [],
      error: this.error,
      configurable: true,
      ...(this.caFingerprint === undefined ? {} : { caFingerprint: this.caFingerprint }),
      ...(listening && this.advertiser.name !== undefined ? { mdnsName: this.advertiser.name, mdnsAnnounced: this.advertiser.announced } : {}),
      pagePath: ONBOARDING_PATHS.alone,
    };
  }

  /**
   * Starts the listener if the saved settings say so. At start-up there is no listener to keep:
   * a failure is kept in the status ("failed") and shown, not thrown.
   */
  async restore(): Promise<ListenerStatus> {
    try {
      return await this.configure(this.core.settings.listener());
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      this.state = 'failed';
      this.error = error.message;
      return this.status();
    }
  }

  /** Applies and saves a configuration once it works; throws PORT_UNAVAILABLE when it does not. */
  async configure(asked: ListenerSettings): Promise<ListenerStatus> {
    const saved = this.core.settings.listener();
    const next = { ...asked, corsOrigins: asked.corsOrigins ?? saved.corsOrigins ?? [], faults: asked.faults ?? saved.faults ?? [] };
    // Read before anything changes: a malformed rule throws here, leaving all as it was.
    const faults = next.faults.map(parseFaultRule);
    if (!next.enabled) {
      await this.stop();
      this.error = null;
      this.save(next, faults);
      return this.status();
    }
    const previous = this.running;
    if (previous && previous.port === next.port && previous.scope === next.scope && (previous.httpsPort ?? null) === (next.httpsPort ?? null)) {
      this.save(next, faults);
      return this.status();
    }
    const stopsBefore = this.stops;
    const server = await this.startBeside(previous, next);
    if (this.stops !== stopsBefore) {
      await server.api.stop();
      return this.status();
    }
    const old = this.server;
    this.server = server.api;
    this.running = next;
    this.boundPort = server.port;
    this.boundHttpsPort = server.httpsPort;
    this.state = 'listening';
    this.error = null;
    await old?.stop();
    this.save(next, faults);
    await this.announce();
    return this.status();
  }

  /** Announces the `.local` name while the listener is on the local network; says goodbye otherwise. */
  private async announce(): Promise<void> {
    if (this.state === 'listening' && this.running?.scope === 'lan') {
      await this.advertiser.advertise({ name: this.core.settings.localName(), port: this.boundPort, httpsPort: this.boundHttpsPort });
    } else {
      await this.advertiser.stop();
    }
  }

  /**
   * A new certificate authority for the data folder (docs/devices.md#connect-a-phone), for a key
   * that may have leaked: a running HTTPS port takes a certificate it signs at once.
   */
  async rotateAuthority(): Promise<ListenerStatus> {
    const authority = this.core.tls;
    if (!authority) throw new ServiceError('FORBIDDEN', 'this data folder is in memory and has no certificate authority');
    this.caFingerprint = fingerprintOf(await authority.rotate());
    await this.server?.refreshCertificate();
    return this.status();
  }

  /** Keeps the settings that now apply: in the database, and the origins and faults the running server reads. */
  private save(next: ListenerSettings & { corsOrigins: string[] }, faults: readonly FaultRule[]): void {
    this.corsOrigins = next.corsOrigins;
    this.faults = faults;
    this.core.settings.setListener(next);
  }

  /**
   * Starts a server for `next` while the running one keeps serving. When the running one holds
   * the very port (on the other scope: 0.0.0.0:P cannot bind beside 127.0.0.1:P), it is stopped
   * first and started again if the new one fails.
   */
  private async startBeside(previous: ListenerSettings | undefined, next: ListenerSettings): Promise<Started> {
    const idle = !this.server;
    if (idle) this.state = 'starting';
    try {
      return await this.listen(next);
    } catch (error) {
      const port = portOf(error) ?? next.port;
      const ours = previous !== undefined && (previous.port === port || previous.httpsPort === port);
      if (errnoOf(error) !== 'EADDRINUSE' || !ours) throw await this.refusal(port, error);
    } finally {
      if (idle) this.state = this.error ? 'failed' : 'stopped';
    }
    // Only this app's own listener was in the way: free the port, and come back if that was not enough.
    await this.halt();
    try {
      return await this.listen(next);
    } catch (error) {
      const refusal = await this.refusal(portOf(error) ?? next.port, error);
      await this.revive(previous);
      throw refusal;
    }
  }

  private async listen(settings: ListenerSettings): Promise<Started> {
    const httpsPort = settings.httpsPort ?? undefined;
    const authority = this.core.tls;
    if (httpsPort !== undefined && !authority) throw new ServiceError('PORT_UNAVAILABLE', 'HTTPS needs a data folder for its certificate; this one is in memory', 'httpsPort');
    const api = new ApiServer(this.core, {
      host: HOSTS[settings.scope],
      port: settings.port,
      cors: () => this.corsOrigins,
      localName: dotLocal(this.core.settings.localName()),
      faults: () => this.faults,
      inspector: this.requests.ring,
      ...(authority ? { tls: { authority, httpsPort } } : {}),
    });
    api.on('request', this.onRequest);
    // Only with HTTPS: reading the authority makes it, and loads its library (about a second, cold).
    if (authority && httpsPort !== undefined) this.caFingerprint = fingerprintOf(await authority.certificatePem());
    const started = await api.start();
    return { api, port: started.port, httpsPort: started.httpsPort };
  }

  /** Starts the listener that was running before a failed switch, as it was. */
  private async revive(settings: ListenerSettings): Promise<void> {
    try {
      const server = await this.listen(settings);
      this.server = server.api;
      this.running = settings;
      this.boundPort = server.port;
      this.boundHttpsPort = server.httpsPort;
      this.state = 'listening';
      await this.announce();
    } catch (error) {
      // Someone took the old port in the moment it was free: nothing is listening any more.
      this.state = 'failed';
      this.error = (await this.refusal(portOf(error) ?? settings.port, error)).message;
    }
  }

  /** The error a failed `listen` on this port is answered with, under the field that names the port. */
  private async refusal(port: number, error: unknown): Promise<ServiceError> {
    const field = portOf(error) === undefined ? 'port' : 'httpsPort';
    const errno = errnoOf(error);
    const message =
      errno === 'EADDRINUSE'
        ? `port ${port} is already in use by ${await portHolder(port, this.consolePort())}`
        : errno === 'EACCES'
          ? `port ${port} needs administrator rights; use a port above 1024`
          : `port ${port} cannot be listened on: ${error instanceof Error ? error.message : String(error)}`;
    return new ServiceError('PORT_UNAVAILABLE', message, field);
  }

  /**
   * Stops the listener. A configure still starting a server when this is called leaves it
   * stopped: the stop is the later word (a host closing, the listener switched off meanwhile).
   */
  async stop(): Promise<void> {
    this.stops += 1;
    await this.halt();
  }

  /** Stops the running server; configure's own step when only this app's listener holds the port. */
  private async halt(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.running = undefined;
    this.state = 'stopped';
    await this.advertiser.stop();
    // A page's held inspector.follow is answered now (it asks again): a closing console waits for it.
    this.requests.ring.release();
    await server?.stop();
  }
}
