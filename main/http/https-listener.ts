import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerOptions as HttpServerOptions, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { Duplex } from 'node:stream';
import { listenerNames, sameNames, type LocalAuthority, type ServerCredentials, type ServerNames } from '../core/tls/authority.js';
import { ADDRESS_CHECK_MS, lanAddresses } from './addresses.js';
import { closeWithin, guardConnections, type ConnectionGuard, type ConnectionLimits } from './connection-guard.js';

/** What the HTTPS port's certificate is issued from (server.ts, `tls`). */
export interface HttpsSetup {
  authority: LocalAuthority;
  /** The listener's `.local` name, listed beside the computer's own names (docs/devices.md). */
  localName?: string | undefined;
  /** This computer's LAN IPv4 addresses (addresses.ts unless a test gives its own). */
  addresses?: () => string[];
  /** How often the addresses are read again (ADDRESS_CHECK_MS unless a test gives its own). */
  checkEveryMs?: number;
}

/** How the TLS server answers what the plain one answers outside Fastify's routes (server.ts). */
export interface PlainAnswers {
  serverOptions: HttpServerOptions;
  limits: ConnectionLimits;
  /** A request Node cannot parse as HTTP, or whose headers came late. */
  onClientError: (error: Error, socket: Duplex) => void;
  /** A CONNECT request, which Node hands to no route. */
  onConnect: (request: IncomingMessage, socket: Duplex) => void;
}

export interface HttpsListenerEvents {
  /** A reissue failed: the certificate in use stays. */
  error: [Error];
}

/**
 * The listener's HTTPS port: the same routes as the plain port, with a certificate from the data
 * folder's authority for every name and address it can be reached at. While it listens, the
 * addresses are read every ADDRESS_CHECK_MS; when they change (or the certificate nears its end)
 * a new certificate is issued and put in place with `setSecureContext`: new connections get it,
 * open ones keep theirs, nothing restarts.
 */
export class HttpsListener extends EventEmitter<HttpsListenerEvents> {
  private server: Server | undefined;
  /** The listener's connection limits (connection-guard.ts), set up with its server. */
  guard: ConnectionGuard | undefined;
  private timer: NodeJS.Timeout | undefined;
  private checking = false;

  private constructor(
    private readonly setup: HttpsSetup,
    private names: ServerNames,
    private credentials: ServerCredentials,
    /** The authority's certificate that signed `credentials`: a rotated authority (`ca rotate`) is noticed at the next check. */
    private authorityPem: string,
  ) {
    super();
  }

  /** Issues (or takes from the folder) the certificate for the names of now. */
  static async issue(setup: HttpsSetup): Promise<HttpsListener> {
    const names = namesNow(setup);
    const credentials = await setup.authority.serverCredentials(names);
    return new HttpsListener(setup, names, credentials, await setup.authority.certificatePem());
  }

  /** The TLS server over the same request handler as the plain one, answering its refusals in the same shape. */
  serve(handler: (request: IncomingMessage, response: ServerResponse) => void, plain: PlainAnswers): Server {
    // A handshake gets the time headers get: a peer sending one byte of it would hold a connection (Node's default is 120 s).
    const server = createServer({ ...plain.serverOptions, key: this.credentials.key, cert: this.credentials.cert, handshakeTimeout: plain.limits.headersTimeoutMs }, handler);
    // Node's own answer to a request that is not HTTP is a bare 400, not the API's JSON.
    server.on('clientError', plain.onClientError);
    server.on('connect', plain.onConnect);
    // A handshake that failed or timed out: Node closes its socket only when someone listens here.
    server.on('tlsClientError', (_error, socket) => socket.destroy());
    this.guard = guardConnections(server, plain.limits);
    this.server = server;
    return server;
  }

  /** Listens on host:port and starts following the addresses; rejects with the error, marked as the HTTPS port's (`httpsPort`). */
  async listen(host: string, port: number): Promise<number> {
    const server = this.server;
    if (!server) throw new Error('the HTTPS server is not set up');
    const bound = await new Promise<number>((resolve, reject) => {
      const failed = (error: Error): void => reject(Object.assign(error, { httpsPort: port }));
      server.once('error', failed);
      server.listen({ host, port }, () => {
        server.off('error', failed);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
    // Once listening, a server error would throw where nobody listens: it goes to this listener's `error`.
    server.on('error', (error) => this.emit('error', error));
    this.timer = setInterval(() => void this.check(), this.setup.checkEveryMs ?? ADDRESS_CHECK_MS);
    this.timer.unref();
    return bound;
  }

  /** Checks now rather than at the next tick: after the authority was rotated from the console. */
  refresh(): Promise<void> {
    return this.check();
  }

  /** Issues a new certificate when the names or the authority changed, or the one in use nears its end. */
  private async check(): Promise<void> {
    if (this.checking || !this.server) return;
    this.checking = true;
    try {
      const names = namesNow(this.setup);
      const authorityPem = await this.setup.authority.certificatePem();
      if (sameNames(names, this.names) && authorityPem === this.authorityPem && !this.setup.authority.renewalDue(this.credentials.notAfter)) return;
      const credentials = await this.setup.authority.serverCredentials(names);
      this.names = names;
      this.authorityPem = authorityPem;
      if (!this.server || credentials.cert === this.credentials.cert) return;
      this.server.setSecureContext({ key: credentials.key, cert: credentials.cert });
      this.credentials = credentials;
    } catch (error) {
      if (this.listenerCount('error') > 0) this.emit('error', error instanceof Error ? error : new Error(String(error)));
    } finally {
      this.checking = false;
    }
  }

  /** Stops following the addresses and closes: requests under way finish, idle connections close. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    const server = this.server;
    this.server = undefined;
    if (!server?.listening) {
      server?.close();
      return;
    }
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    this.guard?.closeSilent();
    server.closeIdleConnections();
    await closeWithin(closed, this.guard);
  }
}

function namesNow(setup: HttpsSetup): ServerNames {
  return listenerNames((setup.addresses ?? lanAddresses)(), setup.localName === undefined ? [] : [setup.localName]);
}
