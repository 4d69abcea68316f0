import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from '../../shared/errors.js';
import { addressKey } from '../core/members/abuse.js';

/** What one listener lets connections hold. */
export interface ConnectionLimits {
  /** Open connections in all; more are answered 503 and closed. */
  maxConnections: number;
  /** Open connections from one address (an IPv6 address counts by its /64). */
  maxConnectionsPerAddress: number;
  /** From connecting to the end of the request's headers: also closes a connection that sends nothing. */
  headersTimeoutMs: number;
  /** From connecting to the end of the request's body: a body sent a byte at a time is cut off. */
  requestTimeoutMs: number;
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
    keepAliveTimeoutMs: 5_000,
  };
}

const REFUSAL = (() => {
  const body = JSON.stringify(errorBody('TOO_MANY_CONNECTIONS', 'too many open connections; try again shortly'));
  return `HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${body}`;
})();

/**
 * Keeps slow or idle connections from exhausting the listener: caps open connections in all and
 * per address, and times out requests whose headers or body come too slowly (Node's own checks,
 * run every second), and connections that never send a byte (which Node never times out).
 * Returns what closes those silent connections when the listener stops: Node's close waits for
 * them (it closes only idle connections that have served a request), and browsers and fetch
 * open them ahead of need.
 */
export function guardConnections(server: Server, limits: ConnectionLimits): () => void {
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  let open = 0;
  const perAddress = new Map<string, number>();
  const sockets = new Set<Socket>();
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
  return () => {
    for (const socket of sockets) if (socket.bytesRead === 0) socket.destroy();
  };
}
