import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hostLogger, LOG_FILE_MAX_BYTES, logCoreEvents } from '../../main/app/host-log.js';
import { createCore } from '../../main/core/service.js';
import { CoreEvents } from '../../main/core/events.js';
import type { Geocoder, Warmable } from '../../main/core/geocode/geocoder.js';

/**
 * The logging policy (main/app/host-log.ts, main/core/events.ts): the core tells, it never
 * writes; each host's log writes JSON lines or lines a person reads, or a rotated file; no
 * credential or password reaches a line.
 */
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function captured(format: 'json' | 'pretty') {
  const lines: string[] = [];
  return { lines, logger: hostLogger({ format, write: (text) => lines.push(text) }) };
}

describe('the host log', () => {
  it("writes the core's events with their cause, as JSON lines or as lines a person reads", () => {
    const events = new CoreEvents();
    const json = captured('json');
    const pretty = captured('pretty');
    logCoreEvents({ events }, json.logger);
    logCoreEvents({ events }, pretty.logger);
    events.emit({ kind: 'daily-backup-failed', error: new Error('disk unplugged') });
    expect(JSON.parse(json.lines[0]!)).toMatchObject({ level: 50, msg: 'the daily backup failed', err: { message: 'disk unplugged' } });
    expect(pretty.lines[0]).toMatch(/^\d{4}-\d{2}-\d{2}T\S+ error the daily backup failed\n {2}Error: disk unplugged\n\s+at /);
  });

  it('never writes a password, a token or a credential, whatever the key it is under', () => {
    const { lines, logger } = captured('json');
    logger.info({ password: 'hunter2-password', pwd: 'hunter3-pwd', token: 'tok-secret', credential: 'dev.secret', req: { headers: { authorization: 'Bearer abc-secret' } }, nested: { token: 'nested-secret' } }, 'a request');
    const text = lines.join('');
    for (const secret of ['hunter2-password', 'hunter3-pwd', 'tok-secret', 'dev.secret', 'abc-secret', 'nested-secret']) expect(text).not.toContain(secret);
    expect(text).toContain('[redacted]');
  });

  it('keeps the desktop log in a private file, moved aside at start once past its size', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'poi-log-'));
    dirs.push(dir);
    const file = join(dir, 'logs', 'main.log');
    const first = hostLogger({ file });
    first.info('first start');
    first.flush();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readFileSync(file, 'utf8')).toContain('first start');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileSync(file, 'x'.repeat(LOG_FILE_MAX_BYTES));
    const second = hostLogger({ file });
    second.info('second start');
    second.flush();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(existsSync(join(dir, 'logs', 'main.1.log'))).toBe(true);
    expect(readFileSync(file, 'utf8')).toContain('second start');
    expect(statSync(file).size).toBeLessThan(1024);
  });

  it('the core writes nothing to a stream itself: a failed warm-up is an event', async () => {
    const geocoder = { reverse: async () => ({}), warm: async () => Promise.reject(new Error('no index')) } satisfies Geocoder & Warmable;
    const core = createCore({ file: ':memory:', geocoder });
    const told: string[] = [];
    core.events.on((event) => told.push(event.kind));
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      await core.warmUp();
    } finally {
      process.stderr.write = write;
      core.close();
    }
    expect(told).toEqual(['warm-up-failed']);
    expect(written).toEqual([]);
  });
});
