import { readFileSync } from 'node:fs';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody, type ErrorBody } from '../../shared/errors.js';
import { addressKey } from '../core/members/abuse.js';

/** What one listener lets connections hold. */
export interface ConnectionLimits {
  /** Open connections in all; more are answered 503 and closed. */
  maxConnections: number;
  /** Open connections from one address (an IPv6 address counts by its /64). */
  maxConnectionsPerAddress: number;
  /** From connecting to the end of the request's headers: also closes a connection that sends nothing. */
  headersTimeoutMs: number;
  /**
   * From connecting (for a kept-alive connection's later requests: from their headers) to the
   * end of the request's body: a body sent a byte at a time is cut off. Not for an upload route's
   * body while the route takes it in: see `uploadIdleTimeoutMs`.
   */
  requestTimeoutMs: number;
  /**
   * How long an upload route's body (a route with `config.upload`) may send nothing before it is
   * cut off. Such a body has no whole deadline: gigabytes over a LAN take minutes, and an upload
   * that keeps coming is never cut, however slow. There is no minimum rate either: a slow link
   * (a VPN, weak Wi-Fi) still makes an upload that works, the routes are behind the console
   * token (a refused upload falls back under `requestTimeoutMs`), and the connection caps bound
   * how many could be held open by trickling.
   */
  uploadIdleTimeoutMs: number;
  /** How long an idle keep-alive connection is kept between requests. */
  keepAliveTimeoutMs: number;
}

/** The soft limit on open files of this process (Linux), which every connection spends one of. */
function openFilesLimit(): number | undefined {
  try {
    const m = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * At most 4,096 connections, and never so many that the process runs out of file descriptors
 * (the database, its WAL and the log need some): a flood is refused at the door instead of
 * making every later `accept` fail.
 */
export function defaultConnectionLimits(fileLimit = openFilesLimit()): ConnectionLimits {
  const byFiles = fileLimit === undefined ? 4096 : Math.max(64, fileLimit - 128);
  return {
    maxConnections: Math.min(4096, byFiles),
    maxConnectionsPerAddress: Math.min(256, byFiles),
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    uploadIdleTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
  };
}

/** A whole HTTP answer with an error body, after which the connection is closed. */
export function closingAnswer(body: ErrorBody, headers = ''): string {
  const json = JSON.stringify(body);
  return `HTTP/1.1 ${body.code} ${STATUS_CODES[body.code] ?? ''}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(json)}\r\n${headers}Connection: close\r\n\r\n${json}`;
}

const REFUSAL = closingAnswer(errorBody('TOO_MANY_CONNECTIONS', 'too many open connections; try again shortly'), 'Retry-After: 1\r\n');

/** The answer to a request whose headers or body did not arrive in time. */
export const LATE = closingAnswer(errorBody('REQUEST_TIMEOUT', 'the request did not arrive in time'));

const stalled = (idleMs: number): string =>
  closingAnswer(errorBody('REQUEST_TIMEOUT', `the upload stalled: nothing arrived for ${idleMs / 1000} s, and nothing of it was kept. Send it again`));

/**
 * How often bodies still arriving are checked: every second, as Node checks headers (server.ts).
 * Limits under 4 s (tests lower them) are checked every quarter of the shortest, so that a cut
 * comes within a quarter of the limit past it.
 */
const CHECK_EVERY_MS = 1000;

/** A request whose body may still be arriving. */
interface Arriving {
  response: ServerResponse;
  /** When it began: its connection's opening for the first request, its headers' end for later ones. */
  since: number;
  /** An upload's: its connection's bytes read at the last check, and when they last grew. */
  progress?: { bytes: number; at: number };
}

/** A request with no body is whole with its headers: nothing to watch. */
const hasBody = (request: IncomingMessage): boolean =>
  request.headers['transfer-encoding'] !== undefined || (request.headers['content-length'] ?? '0') !== '0';

/**
 * What a request whose body has not all arrived is answered if it must be cut off now, or
 * undefined while it may go on. An upload is cut when it stalls, and only while its route takes
 * it in: once the route has answered (a refusal, before the body's end) the rest is held to the
 * whole deadline like any request's.
 */
function overdue(request: IncomingMessage, socket: Socket, arriving: Arriving, now: number, limits: ConnectionLimits): string | undefined {
  const progress = arriving.progress;
  if (progress === undefined || arriving.response.writableEnded) return now - arriving.since >= limits.requestTimeoutMs ? LATE : undefined;
  const bytes = socket.bytesRead;
  // Bytes waiting in the request's buffer: the server (a busy disk), not the peer, is behind.
  if (bytes !== progress.bytes || request.readableLength > 0) {
    progress.bytes = bytes;
    progress.at = now;
    return undefined;
  }
  return now - progress.at >= limits.uploadIdleTimeoutMs ? stalled(limits.uploadIdleTimeoutMs) : undefined;
}

/**
 * Answers a request cut off, unless its answer has begun (a second one would corrupt it), and
 * closes the connection once that is sent: the route reading its body then sees it end early.
 */
function cutOff(socket: Socket, response: ServerResponse, answer: string): void {
  if (response.headersSent || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(answer);
  socket.destroySoon();
}

/** What a listener's connections are checked by, once guardConnections has set it up. */
export interface ConnectionGuard {
  /** Binds a request by its body's progress instead of the whole deadline: an upload route's. */
  byProgress(request: IncomingMessage): void;
  /**
   * Closes the connections that never sent a byte, when the listener stops: Node's close waits
   * for them (it closes only idle connections that have served a request), and browsers and
   * fetch open them ahead of need.
   */
  closeSilent(): void;
  /**
   * Once the listener has stopped and STOP_GRACE_MS passed: closes every connection left, such as
   * a peer holding half of its headers or of a TLS handshake, which would keep the port bound.
   */
  closeAll(): void;
}

/** How long a stopping listener lets requests under way finish before it closes what is left. */
export const STOP_GRACE_MS = 2000;

/**
 * Waits for a closing server (`closed`), at most STOP_GRACE_MS; then closes every connection the
 * guard holds and waits for the close itself, which now comes.
 */
export async function closeWithin(closed: Promise<void>, guard: ConnectionGuard | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_GRACE_MS)));
  if ((await Promise.race([closed, late])) === 'late') guard?.closeAll();
  clearTimeout(timer);
  await closed;
}

/**
 * Keeps slow or idle connections from exhausting the listener: caps open connections in all and
 * per address, and times out requests whose headers (Node's own check, run every second) or body
 * come too slowly, and connections that never send a byte (which Node never times out).
 *
 * The body's deadline is kept here, not by Node's `requestTimeout`: Node's is one for every
 * request of the server, from the message's start to its last byte, and would cut an upload of
 * gigabytes after 30 s however fast it came. Here each request has its own, checked like Node's
 * in a sweep over the requests whose body is still arriving, and an upload route trades it for a
 * limit on how long it may send nothing.
 */
export function guardConnections(server: Server, limits: ConnectionLimits): ConnectionGuard {
  server.headersTimeout = limits.headersTimeoutMs;
  // Node's own would cut every upload at the same deadline: the body's is kept below instead.
  server.requestTimeout = 0;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  let open = 0;
  const perAddress = new Map<string, number>();
  const sockets = new Set<Socket>();
  const openedAt = new WeakMap<Socket, number>();
  const arriving = new Map<IncomingMessage, Arriving>();
  // First, so that a refused connection gets the refusal before Node's parser reads a byte.
  server.prependListener('connection', (socket: Socket) => {
    const key = addressKey(socket.remoteAddress ?? '');
    const fromThere = perAddress.get(key) ?? 0;
    if (open >= limits.maxConnections || fromThere >= limits.maxConnectionsPerAddress) {
      socket.on('error', () => undefined);
      socket.end(REFUSAL);
      socket.destroySoon();
      return;
    }
    open += 1;
    perAddress.set(key, fromThere + 1);
    sockets.add(socket);
    openedAt.set(socket, performance.now());
    const silent = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.headersTimeoutMs);
    socket.once('close', () => {
      clearTimeout(silent);
      sockets.delete(socket);
      open -= 1;
      const left = (perAddress.get(key) ?? 1) - 1;
      if (left === 0) perAddress.delete(key);
      else perAddress.set(key, left);
    });
  });
  // First, so that a route's onRequest hook finds its request here.
  server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => {
    const opened = openedAt.get(request.socket);
    if (opened !== undefined) openedAt.delete(request.socket);
    if (hasBody(request)) arriving.set(request, { response, since: opened ?? performance.now() });
  });
  const check = (): void => {
    const now = performance.now();
    for (const [request, watched] of arriving) {
      // Node sets a finished request's socket to null, whatever its type says: that request is done.
      const socket: Socket | null = request.socket;
      if (request.complete || socket === null || socket.destroyed) {
        arriving.delete(request);
        continue;
      }
      const answer = overdue(request, socket, watched, now, limits);
      if (answer === undefined) continue;
      arriving.delete(request);
      cutOff(socket, watched.response, answer);
    }
  };
  let checking: NodeJS.Timeout | undefined;
  server.on('listening', () => {
    clearInterval(checking);
    checking = setInterval(check, Math.min(CHECK_EVERY_MS, limits.requestTimeoutMs / 4, limits.uploadIdleTimeoutMs / 4)).unref();
  });
  server.on('close', () => clearInterval(checking));
  return {
    byProgress: (request) => {
      const watched = arriving.get(request);
      const socket: Socket | null = request.socket;
      if (watched && socket !== null) watched.progress = { bytes: socket.bytesRead, at: performance.now() };
    },
    closeSilent: () => {
      for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
    },
    closeAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
