import { connect, type Socket } from 'node:net';
import { RECEIVER_SILENT_MS, type ReceiverSource, type ReceiverStatus } from '../../../shared/location.js';
import type { FixReader } from './fix-reader.js';
import { GPSD_WATCH, GpsdFixes } from './gpsd-fixes.js';
import { NmeaFixes } from './nmea-fixes.js';

/**
 * The share of the main process a receiver may take: the time spent reading its lines, in
 * milliseconds a second. A GNSS needs well under 1 ms (20 fixes a second, a handful of
 * sentences each); a peer that sends more than this is paused for the rest of the second, so
 * that it cannot keep the app busy, whether by many cheap lines or few costly ones (16 KiB of
 * gpsd JSON takes about 1 ms to parse).
 */
export const BUSY_MS_PER_SECOND = 50;
/** How long a connection may take before it is given up and tried again. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * A connected receiver that sends nothing for this long is gone (out of Wi-Fi range, a phone
 * app in the background: the connection stays half open): connect again.
 */
export const SILENT_RECONNECT_MS = 10_000;
/** Waits between attempts: doubling from the first to the last, so a receiver switched on later is found within seconds. */
const RETRY_FIRST_MS = 1_000;
const RETRY_LAST_MS = 10_000;

export interface ReceiverAddress {
  source: ReceiverSource;
  host: string;
  port: number;
}

/** Plain words for why a connection failed (Node's codes say it to a programmer). */
function problemOf(error: NodeJS.ErrnoException, address: string): string {
  switch (error.code) {
    case 'ECONNREFUSED':
      return `${address} refused the connection: check that the receiver (or its app) is on and serves on that port.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `No computer is known by that name (${address}): check the host.`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${address} did not answer: check that this computer and the receiver are on the same network.`;
    default:
      return `The connection to ${address} failed (${error.code ?? error.message}).`;
  }
}

/**
 * A GNSS receiver (or gpsd) read over TCP, from the main process: it connects, reads lines, keeps
 * the newest fix, and connects again (with growing waits) when the stream ends. A fix older than
 * RECEIVER_SILENT_MS is not reported: the stream stopped or the receiver lost the sky, and the
 * map's corner says "no fix" within seconds.
 */
export class Receiver {
  private socket: Socket | undefined;
  private retry: NodeJS.Timeout | undefined;
  private retryMs = RETRY_FIRST_MS;
  private reader: FixReader;
  /** Lines dropped for their length (the reader counts the rest). */
  private tooLong = 0;
  private pending = '';
  private skipping = false;
  private connected = false;
  private problem: string | null = null;
  private stopped = false;
  /** Reading time spent in the current second (performance.now(), never the app's clock, which tests pin). */
  private second = { start: 0, busyMs: 0 };
  private resume: NodeJS.Timeout | undefined;
  /** Whether this connection gave a fix: only then do the waits between attempts start again from the first. */
  private gaveFix = false;

  constructor(
    readonly address: ReceiverAddress,
    private readonly now: () => number,
    /** Tests shorten the wait for a silent receiver. */
    private readonly silentMs = SILENT_RECONNECT_MS,
  ) {
    this.reader = address.source === 'gpsd' ? new GpsdFixes(now) : new NmeaFixes(now);
    this.open();
  }

  private get label(): string {
    return this.address.host.includes(':') ? `[${this.address.host}]:${this.address.port}` : `${this.address.host}:${this.address.port}`;
  }

  private open(): void {
    if (this.stopped) return;
    const socket = connect({ host: this.address.host, port: this.address.port });
    this.socket = socket;
    this.gaveFix = false;
    socket.unref();
    socket.setEncoding('latin1');
    socket.setTimeout(CONNECT_TIMEOUT_MS);
    socket.on('connect', () => {
      socket.setTimeout(this.silentMs);
      socket.setKeepAlive(true, this.silentMs / 2);
      this.connected = true;
      this.problem = null;
      if (this.address.source === 'gpsd') socket.write(GPSD_WATCH);
    });
    socket.on('timeout', () => {
      if (this.connected) this.problem = `${this.label} sent nothing for ${Math.round(this.silentMs / 1000)} s; connecting again.`;
      socket.destroy(Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' }));
    });
    socket.on('data', (chunk: string) => this.take(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.problem = problemOf(error, this.label);
    });
    socket.on('close', () => {
      if (this.connected && this.problem === null) this.problem = `${this.label} closed the connection; connecting again.`;
      this.connected = false;
      this.pending = '';
      this.skipping = false;
      if (this.stopped) return;
      // A peer that takes the connection and drops it at once is tried less and less often.
      if (this.gaveFix) this.retryMs = RETRY_FIRST_MS;
      this.retry = setTimeout(() => this.open(), this.retryMs);
      this.retry.unref();
      this.retryMs = Math.min(RETRY_LAST_MS, this.retryMs * 2);
    });
  }

  /** Splits the stream into lines, never keeping more than one line's worth. */
  private take(chunk: string): void {
    const began = performance.now();
    if (began - this.second.start >= 1_000) this.second = { start: began, busyMs: 0 };
    const max = this.reader.maxLineChars;
    let start = 0;
    for (;;) {
      const end = chunk.indexOf('\n', start);
      if (end === -1) break;
      const line = this.pending + chunk.slice(start, end);
      this.pending = '';
      if (this.skipping) this.skipping = false;
      else if (line.length > max) this.tooLong += 1;
      else this.reader.read(line);
      start = end + 1;
    }
    if (this.reader.last()) this.gaveFix = true;
    this.second.busyMs += performance.now() - began;
    this.budget();
    if (this.skipping) return;
    this.pending += chunk.slice(start);
    if (this.pending.length > max) {
      this.pending = '';
      this.skipping = true;
      this.tooLong += 1;
    }
  }

  /** Pauses a stream past BUSY_MS_PER_SECOND until its second is over. */
  private budget(): void {
    const socket = this.socket;
    if (this.second.busyMs <= BUSY_MS_PER_SECOND || !socket || socket.isPaused()) return;
    socket.pause();
    this.resume = setTimeout(() => socket.resume(), Math.max(0, 1_000 - (performance.now() - this.second.start)));
    this.resume.unref();
  }

  status(): ReceiverStatus {
    const fix = this.reader.last();
    return {
      source: this.address.source,
      address: this.label,
      connected: this.connected,
      fix: fix && this.now() - fix.at <= RECEIVER_SILENT_MS ? fix : null,
      ignoredLines: this.reader.ignored + this.tooLong,
      used: this.reader.used(),
      problem: this.problem,
    };
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retry);
    clearTimeout(this.resume);
    this.socket?.destroy();
  }
}
