import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type onRequestHookHandler } from 'fastify';
import { errorBody, type ErrorBody } from '../../shared/errors.js';
import { ServiceError, storageError } from '../core/errors.js';
import type { Core } from '../core/service.js';
import type { ParsedBody } from './body-parsers.js';
import { jsonEntries, registerBodyParsers } from './body-parsers.js';
import { closeWithin, closingAnswer, defaultConnectionLimits, guardConnections, LATE, type ConnectionGuard, type ConnectionLimits } from './connection-guard.js';
import { WireParams, parseUrlEncoded, type Entries } from './params.js';
import type { ReplyHeader } from '../core/api/handlers.js';
import { mountConsole, type ConsoleOptions } from './console-routes.js';
import { mountApiDescription } from './api-description.js';
import { ApiRunner, resolveOperation, type Resolved } from './api-runner.js';
import { JsonText } from './reply-memo.js';
import { HostAllowlist, misdirected } from './host-allowlist.js';
import { mountCors, routedMethods } from './cors.js';
import type { FaultRule } from '../../shared/faults.js';
import { mountFaults } from './faults.js';
import { reachableAddresses } from './addresses.js';
import { HttpsListener, type HttpsSetup } from './https-listener.js';
import { mountOnboarding, ONBOARDING_PATHS } from './onboarding.js';
import { Exchange } from './inspector/capture.js';
import type { RequestRing } from './inspector/ring.js';
import type { RequestSummary } from '../../shared/inspector.js';

export interface ApiServerOptions {
  /** 127.0.0.1 unless told otherwise: exposing the API to the network is a choice. */
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Largest accepted request body, in bytes. */
  bodyLimit?: number;
  /** Serve the service's API under /1/ (default true). */
  api?: boolean;
  /** Caps and timeouts of connections; the defaults of connection-guard.ts where not given. */
  connections?: Partial<ConnectionLimits>;
  /** Also serve the admin UI and its operations (browser mode). */
  console?: ConsoleOptions;
  /** Answer repeated reads from memory until what they answered changes (reply-memo.ts); on unless false. */
  replyMemo?: boolean;
  /** The origins allowed to call the API from a browser (cors.ts), read on each request. */
  cors?: () => readonly string[];
  /** Faults on purpose (faults.ts), read on each request: none unless given. */
  faults?: () => readonly FaultRule[];
  /**
   * The data folder's certificate authority: its certificate is offered at /ca.pem and /ca.crt;
   * with `httpsPort` (0 takes any free port) every route is served over HTTPS there too, with a
   * certificate that follows the addresses (https-listener.ts).
   */
  tls?: Omit<HttpsSetup, 'localName'> & { httpsPort?: number | undefined };
  /** The listener's `.local` name (docs/devices.md#a-stable-name): answered to, and in the certificate. */
  localName?: string | undefined;
  /** Where the API's requests are kept for the request inspector (inspector/ring.ts), while it is enabled. */
  inspector?: RequestRing;
}

/**
 * One line of the request log (an inspector/capture.ts Exchange): the inspector's list's fields,
 * its time in milliseconds since the epoch. The query string is never logged: it carries tokens.
 */
export type RequestLogEntry = Omit<RequestSummary, 'id' | 'time' | 'replayOf'> & { time: number };

export interface ApiServerEvents {
  request: [RequestLogEntry];
  /** Failures to listen (e.g. EADDRINUSE) and internal errors answered with 500. */
  error: [Error];
  listening: [{ host: string; port: number }];
  closed: [];
}

export const DEFAULT_BODY_LIMIT = 64 * 1024;
const JSON_TYPE = 'application/json; charset=utf-8';
/** nginx's status for a client that closed its connection before its answer: logged, never sent. */
const CLIENT_CLOSED_REQUEST = 499;
const pathOf = (url: string): string => url.split('?', 1)[0]!;
const isApi = (url: string): boolean => url.startsWith('/1/');

/**
 * Requests Node cannot even parse as HTTP are answered in the API's shape, then closed. Headers
 * that did not arrive in time (Node's check) come here too; a body that did not is answered by
 * connection-guard.ts itself. On both ports.
 */
function answerClientError(error: Error, socket: Duplex): void {
  if (!socket.writable) return;
  const late = (error as NodeJS.ErrnoException).code === 'ERR_HTTP_REQUEST_TIMEOUT';
  socket.end(late ? LATE : closingAnswer(errorBody('MALFORMED_REQUEST', 'the request is not valid HTTP')));
}

/** CONNECT, which Node hands to no route, is answered instead of dropped. On both ports. */
function refuseConnect(_request: IncomingMessage, socket: Duplex): void {
  const body = JSON.stringify(errorBody('METHOD_NOT_ALLOWED', 'CONNECT is not allowed'));
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function sendError(reply: FastifyReply, body: ErrorBody, retryAfter?: number): void {
  if (retryAfter !== undefined) void reply.header('retry-after', String(retryAfter));
  void reply.code(body.code).type(JSON_TYPE).send(body);
}

/**
 * Turns anything thrown while handling a request into the wire error: 503 for the storage under
 * the database (logged: the operator must hear of a full disk), 500 only for bugs.
 */
function toErrorBody(error: unknown): { body: ErrorBody; retryAfter?: number; internal: boolean } {
  const storage = storageError(error);
  if (storage) {
    const body = storage.toBody();
    return storage.retryAfterSeconds === undefined ? { body, internal: true } : { body, retryAfter: storage.retryAfterSeconds, internal: true };
  }
  if (error instanceof ServiceError) {
    const body = error.toBody();
    return error.retryAfterSeconds === undefined
      ? { body, internal: false }
      : { body, retryAfter: error.retryAfterSeconds, internal: false };
  }
  const status = (error as Partial<FastifyError> | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (status === 413) return { body: errorBody('PAYLOAD_TOO_LARGE', 'the request body is too large'), internal: false };
    if (status === 415) {
      return {
        body: errorBody('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data, application/x-www-form-urlencoded or JSON'),
        internal: false,
      };
    }
    return { body: errorBody('MALFORMED_REQUEST', 'the request could not be read'), internal: false };
  }
  return { body: errorBody('INTERNAL', 'unexpected error; it has been logged'), internal: true };
}

/** The local HTTP listener: the service's API over the core, with start/stop and typed events. */
export class ApiServer extends EventEmitter<ApiServerEvents> {
  private app: FastifyInstance | undefined;
  private readonly runner: ApiRunner;
  /** The listener's connection limits (connection-guard.ts), set up with its server. */
  private guard: ConnectionGuard | undefined;
  /** The Host names it answers to (host-allowlist.ts). */
  private readonly hosts: HostAllowlist;
  /** The same routes over TLS, beside the plain listener, when `tls.httpsPort` is given. */
  private https: HttpsListener | undefined;
  private httpsPort: number | undefined;
  /** The request each of Fastify's requests is logged and inspected as. */
  private readonly exchanges = new WeakMap<IncomingMessage, Exchange>();

  constructor(
    core: Core,
    private readonly options: ApiServerOptions = {},
  ) {
    super();
    this.runner = new ApiRunner(core, { memo: options.replyMemo ?? true });
    this.hosts = new HostAllowlist(options.host ?? '127.0.0.1', undefined, options.localName === undefined ? [] : [options.localName]);
  }

  /**
   * Internal and storage errors go to `error` listeners, or to stderr when nobody listens (emit
   * would throw): a storage error in one line, a bug with its stack.
   */
  private report(error: unknown): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error') > 0) this.emit('error', failure);
    else if (storageError(error)) console.error(`poi api: storage error: ${failure.message}`);
    else console.error('poi api: internal error', failure);
  }

  /** Requests answered from the memo of repeated reads (reply-memo.ts). */
  get memoHits(): number {
    return this.runner.memo.hits;
  }

  get listening(): boolean {
    return this.app !== undefined;
  }

  private async build(secure: HttpsListener | undefined): Promise<FastifyInstance> {
    const limit = this.options.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const app = Fastify({
      logger: false,
      // Our own server: an HTTP/1.1 request without Host still gets a JSON answer (Node would
      // refuse it bare), and CONNECT, which Node hands to no route, is answered instead of dropped.
      serverFactory: (handler) => {
        const serve = (request: IncomingMessage, response: ServerResponse): void => {
          if (this.answerDirectly(request, response)) return;
          // Fastify calls no hook for a client that left after sending its whole request.
          const arrived = performance.now();
          const exchange = Exchange.of(request);
          this.exchanges.set(request, exchange);
          response.once('close', () => {
            if (!response.writableFinished) this.log(exchange, CLIENT_CLOSED_REQUEST, performance.now() - arrived);
          });
          handler(request, response);
        };
        // Node checks its header and request timeouts every connectionsCheckingInterval.
        const serverOptions = { requireHostHeader: false, connectionsCheckingInterval: 1000 };
        const server = createServer(serverOptions, serve);
        const limits = { ...defaultConnectionLimits(), ...this.options.connections };
        this.guard = guardConnections(server, limits);
        if (secure) {
          secure.serve(serve, { serverOptions, limits, onClientError: answerClientError, onConnect: refuseConnect });
          this.https = secure;
        }
        server.on('connect', refuseConnect);
        return server;
      },
      bodyLimit: limit,
      return503OnClosing: false,
      // Errors Fastify meets before routing (an undecodable path) get our JSON shape too.
      frameworkErrors: (_error, _request, reply) =>
        sendError(reply, errorBody('MALFORMED_REQUEST', 'the path has a malformed percent-encoding')),
      clientErrorHandler: answerClientError,
    });
    registerBodyParsers(app, limit);
    // RFC 9112: an HTTP/1.1 request without Host is a 400 (Node's own refusal would not be JSON).
    // A callback hook, not an async one: no promise per request.
    app.addHook('onRequest', (request, reply, done) => {
      if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
        sendError(reply, errorBody('MALFORMED_REQUEST', 'an HTTP/1.1 request needs a Host header'));
        return;
      }
      done();
    });
    app.addHook('onRequest', (request, reply, done) => {
      if (this.hosts.allows(request.headers.host)) done();
      else sendError(reply, misdirected(request.headers.host ?? ''));
    });
    app.setErrorHandler((error, _request, reply) => {
      const { body, retryAfter, internal } = toErrorBody(error);
      if (internal) this.report(error);
      sendError(reply, body, retryAfter);
    });
    // Verbs Fastify routes nowhere (PROPFIND, LOCK...) land here: on an API path they are a 405.
    app.setNotFoundHandler((request, reply) => {
      let body = errorBody('NOT_FOUND', 'no such operation');
      if (this.options.api !== false) {
        try {
          resolveOperation(request.method, pathOf(request.raw.url ?? '/'));
        } catch (error) {
          if (error instanceof ServiceError) body = error.toBody();
        }
      }
      sendError(reply, body);
    });
    app.addHook('onResponse', (request, reply, done) => {
      const exchange = this.exchanges.get(request.raw);
      if (exchange) this.log(exchange, reply.statusCode, reply.elapsedTime);
      done();
    });
    const ring = this.options.inspector;
    if (ring) {
      app.addHook('onSend', (request, reply, payload, done) => {
        const exchange = ring.enabled && isApi(request.url) ? this.exchanges.get(request.raw) : undefined;
        if (exchange && (typeof payload === 'string' || Buffer.isBuffer(payload))) exchange.keepReply(payload, reply.getHeaders());
        done(null, payload);
      });
    }
    // An upload route (config.upload) is bound by its body's progress, not the whole deadline
    // (connection-guard.ts): read once per route as it is added, so other requests pay nothing.
    app.addHook('onRoute', (route) => {
      if (route.config?.upload !== true) return;
      const byProgress: onRequestHookHandler = (request, _reply, done) => {
        this.guard?.byProgress(request.raw);
        this.https?.guard?.byProgress(request.raw);
        done();
      };
      route.onRequest = [byProgress, ...[route.onRequest ?? []].flat()];
    });
    if (this.options.console) await mountConsole(app, this.options.console);
    if (this.options.api === false) return app;
    await mountApiDescription(app);
    if (this.options.cors) await mountCors(app, this.options.cors);
    mountFaults(app, this.options.faults, sendError);
    mountOnboarding(app, {
      authority: this.options.tls?.authority,
      // The console's page is the listener's / when it serves both (cli serve).
      path: this.options.console ? ONBOARDING_PATHS.besideConsole : ONBOARDING_PATHS.alone,
      bases: () => this.bases(),
    });
    // What answerDirectly left: bodies, HEAD, and paths that are no operation's (OPTIONS: cors.ts).
    app.route({ method: routedMethods(app, this.options.cors !== undefined), url: '*', handler: async (request, reply) => {
      const url = request.raw.url ?? '/';
      const body = request.body as ParsedBody | undefined;
      const exchange = this.exchanges.get(request.raw);
      if (body !== undefined && exchange && this.options.inspector?.enabled) {
        exchange.keepBody('json' in body ? { text: body.text } : { form: request.headers['content-type']?.startsWith('multipart/') ? 'multipart' : 'urlencoded', entries: body.entries });
      }
      const entries = body === undefined ? [] : 'json' in body ? jsonEntries(body.json) : body.entries;
      const operation = resolveOperation(request.method, pathOf(url));
      if (exchange) exchange.operation = operation.route.name;
      const answer = this.answer(operation, url, entries, request.ip, (name, value) => void reply.header(name, value), undefined, exchange);
      if (!(answer instanceof JsonText)) return answer;
      void reply.type(JSON_TYPE);
      return answer.text;
    } });
    return app;
  }

  /** The request is answered: into the request log, and the inspector's ring when it is an API request. */
  private log(exchange: Exchange, status: number, ms: number): void {
    exchange.status = status;
    exchange.ms = ms;
    this.emit('request', exchange);
    if (this.options.inspector?.enabled && isApi(exchange.url)) this.options.inspector.add(exchange);
  }

  /**
   * An API GET without a body is answered here, before Fastify: from the memo when it remembers
   * the URL, else through the same runner and error shapes as the Fastify route below. Fastify's
   * request and reply objects, hooks and promises cost a tenth of a plain read (the bench's
   * get.json), and such a request needs none of its body parsers. Anything else, and anything
   * whose path is not an operation's (Fastify's 404, 405 and malformed-path answers), goes on to
   * Fastify.
   */
  private answerDirectly(request: IncomingMessage, response: ServerResponse): boolean {
    const url = request.url;
    if (request.method !== 'GET' || url === undefined || !url.startsWith('/1/') || this.options.api === false) return false;
    if (request.headers['content-length'] !== undefined || request.headers['transfer-encoding'] !== undefined) return false;
    if (request.httpVersion === '1.1' && request.headers.host === undefined) return false;
    if (!this.hosts.allows(request.headers.host)) return false;
    if (request.headers.origin !== undefined && (this.options.cors?.().length ?? 0) > 0) return false;
    if ((this.options.faults?.().length ?? 0) > 0) return false;
    const started = performance.now();
    const exchange = Exchange.of(request);
    // What a handler adds to the reply is kept beside it: its type and length are the same for all.
    const header: ReplyHeader = (name, value) => {
      response.setHeader(name, value);
      exchange.addReplyHeader(name, value);
    };
    const send = (status: number, bytes: Buffer | string): void => {
      if (request.socket.destroyed) {
        this.log(exchange, CLIENT_CLOSED_REQUEST, performance.now() - started);
        return;
      }
      response.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(bytes) });
      response.end(bytes);
      if (this.options.inspector?.enabled) exchange.keepReply(bytes, JSON_TYPE);
      this.log(exchange, status, performance.now() - started);
    };
    const fail = (error: unknown): void => {
      const { body, retryAfter, internal } = toErrorBody(error);
      if (internal) this.report(error);
      // A failure after the reply went out (a request listener that threw) has nothing to answer.
      if (response.headersSent) return;
      if (retryAfter !== undefined) header('retry-after', String(retryAfter));
      send(body.code, JSON.stringify(body));
    };
    const succeed = (answer: unknown): void => send(200, answer instanceof JsonText ? answer.text : JSON.stringify(answer));
    try {
      const remembered = this.runner.memo.recall(url);
      if (remembered) {
        exchange.caller = remembered.caller;
        send(200, remembered.bytes);
        return true;
      }
      let operation: Resolved;
      try {
        operation = resolveOperation('GET', pathOf(url));
      } catch {
        return false;
      }
      // All a GET without a body asks is in its URL: the key of a repeatable read's memo.
      exchange.operation = operation.route.name;
      const answer = this.answer(operation, url, [], request.socket.remoteAddress ?? '', header, url, exchange);
      if (answer instanceof Promise) answer.then(succeed).catch(fail).catch((error: unknown) => this.report(error));
      else succeed(answer);
    } catch (error) {
      fail(error);
    }
    return true;
  }

  /** The operation's answer to the URL's query and the body's entries; `memoKey` where the memo may keep it; `seen` hears who called. */
  private answer(operation: Resolved, url: string, entries: Entries, origin: string, header: ReplyHeader, memoKey?: string, seen?: Exchange): unknown {
    const q = url.indexOf('?');
    const params = WireParams.from(parseUrlEncoded(q === -1 ? '' : url.slice(q + 1)), entries);
    return this.runner.run(operation, params, origin, header, memoKey, seen);
  }

  /** The API's base URLs over HTTP, and over HTTPS when it listens there too. */
  private bases(): { http: string[]; https: string[] } {
    const address = this.app?.server.address();
    const host = this.options.host ?? '127.0.0.1';
    const reach = host === '0.0.0.0' || host === '::' ? '0.0.0.0' : host;
    return {
      http: typeof address === 'object' && address ? reachableAddresses(reach, address.port) : [],
      https: this.httpsPort === undefined ? [] : reachableAddresses(reach, this.httpsPort, 'https'),
    };
  }

  /**
   * Listens; rejects (and emits `error`) when the port is taken or the address is not ours. A
   * failure on the HTTPS port carries that port (`httpsPort`) for the message that names it.
   */
  async start(): Promise<{ host: string; port: number; httpsPort?: number }> {
    if (this.app) throw new Error('the listener is already running');
    const tls = this.options.tls;
    // Issued (or renewed) for every address of this computer: a phone may use any of them.
    const secure = tls?.httpsPort === undefined ? undefined : await HttpsListener.issue({ ...tls, localName: this.options.localName });
    secure?.on('error', (error) => this.report(error));
    const app = await this.build(secure);
    const host = this.options.host ?? '127.0.0.1';
    try {
      await app.listen({ host, port: this.options.port ?? 0 });
      if (this.https) this.httpsPort = await this.https.listen(host, tls?.httpsPort ?? 0);
    } catch (error) {
      await app.close().catch(() => undefined);
      await this.https?.close();
      this.https = undefined;
      const failure = error instanceof Error ? error : new Error(String(error));
      if (this.listenerCount('error') > 0) this.emit('error', failure);
      throw failure;
    }
    this.app = app;
    // Once listening, a server error (an accept that fails) would throw where nobody listens: reported instead.
    app.server.on('error', (error) => this.report(error));
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : (this.options.port ?? 0);
    this.emit('listening', { host, port });
    return this.httpsPort === undefined ? { host, port } : { host, port, httpsPort: this.httpsPort };
  }

  /** Puts a certificate from the (rotated) authority in place on the HTTPS port, if there is one. */
  async refreshCertificate(): Promise<void> {
    await this.https?.refresh();
  }

  async stop(): Promise<void> {
    const app = this.app;
    if (!app) return;
    this.app = undefined;
    const closing = app.close();
    this.guard?.closeSilent();
    const https = this.https;
    this.https = undefined;
    this.httpsPort = undefined;
    await https?.close();
    await closeWithin(closing, this.guard);
    this.emit('closed');
  }
}

