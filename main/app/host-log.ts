import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { destination, pino, type DestinationStream, type Logger } from 'pino';
import type { CoreEvent } from '../core/events.js';
import type { Core } from '../core/service.js';

/** How a host's log is written: JSON lines for machines, or lines a person reads. */
export const LOG_FORMATS = ['pretty', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** `--log-format`'s value, refused in plain words when it is none of LOG_FORMATS. */
export function logFormatOf(text: string | undefined, fallback: LogFormat): LogFormat {
  if (text === undefined) return fallback;
  const format = LOG_FORMATS.find((f) => f === text);
  if (!format) throw new Error(`--log-format ${text}: expected ${LOG_FORMATS.join(' or ')}`);
  return format;
}

/** The desktop's log file is rotated past this size, at start: the last LOG_FILES_KEPT are kept. */
export const LOG_FILE_MAX_BYTES = 5 * 1024 * 1024;
const LOG_FILES_KEPT = 3;

/** What no log line may carry, wherever it comes from: credentials and passwords. */
const REDACT = ['req.headers.authorization', 'headers.authorization', 'password', 'pwd', 'token', 'access_token', 'oauth_token', 'credential', '*.password', '*.pwd', '*.token', '*.credential'];

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** One JSON line as a person reads it: time, level, message, then the other fields; an error with its stack. */
function prettyLine(line: string): string {
  const { time, level, msg, err, pid: _pid, hostname: _hostname, ...rest } = JSON.parse(line) as Record<string, unknown>;
  const when = typeof time === 'number' ? new Date(time).toISOString() : '';
  const fields = Object.entries(rest)
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' ');
  const stack = typeof err === 'object' && err !== null && 'stack' in err && typeof err.stack === 'string' ? `\n  ${err.stack.replace(/\n/g, '\n  ')}` : '';
  return `${when} ${LEVELS[Number(level)] ?? String(level)} ${String(msg ?? '')}${fields ? ` ${fields}` : ''}${stack}\n`;
}

const prettyTo = (write: (text: string) => void): DestinationStream => ({ write: (line) => write(prettyLine(line)) });

/** Where a host logs: its standard output (serve, browser mode), or a file in the data folder (the desktop). */
export type LogTarget = { format: LogFormat; write?: (text: string) => void } | { file: string };

/** Older logs moved aside (main.log → main.1.log → …), the oldest beyond LOG_FILES_KEPT removed. */
function rotate(file: string): void {
  if (!existsSync(file) || statSync(file).size < LOG_FILE_MAX_BYTES) return;
  const aside = (n: number): string => file.replace(/\.log$/, `.${n}.log`);
  rmSync(aside(LOG_FILES_KEPT - 1), { force: true });
  for (let n = LOG_FILES_KEPT - 2; n >= 1; n--) if (existsSync(aside(n))) renameSync(aside(n), aside(n + 1));
  renameSync(file, aside(1));
}

/**
 * A host's logger (pino): the one place a host's lines are written. Credentials and passwords
 * are redacted by key wherever they would appear.
 */
export function hostLogger(target: LogTarget): Logger {
  const options = { level: process.env.POI_LOG_LEVEL ?? 'info', redact: { paths: REDACT, censor: '[redacted]' } };
  if ('file' in target) {
    mkdirSync(join(target.file, '..'), { recursive: true, mode: 0o700 });
    rotate(target.file);
    return pino(options, destination({ dest: target.file, mode: 0o600, sync: false }));
  }
  const write = target.write ?? ((text: string) => void process.stdout.write(text));
  return pino(options, target.format === 'json' ? { write } : prettyTo(write));
}

/** Each thing the core tells its host, as a log line. */
const LINES: { [K in CoreEvent['kind']]: (logger: Logger, event: Extract<CoreEvent, { kind: K }>) => void } = {
  'warm-up-failed': (logger, e) => logger.warn({ err: e.error }, 'warm-up failed: the first requests will be slower'),
  'daily-backup-failed': (logger, e) => logger.error({ err: e.error }, 'the daily backup failed'),
  'job-end-not-kept': (logger, e) => logger.error({ err: e.error, jobId: e.jobId, state: e.state }, 'a job ended, but its end could not be kept: it will be taken for interrupted at the next start'),
};

/** The core's events written to the host's log, from now until the returned function is called. */
export function logCoreEvents(core: Pick<Core, 'events'>, logger: Logger): () => void {
  return core.events.on((event) => {
    // Each kind's line takes that kind's event (LINES is keyed by kind).
    (LINES[event.kind] as (logger: Logger, event: CoreEvent) => void)(logger, event);
  });
}
