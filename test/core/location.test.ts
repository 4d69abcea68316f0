import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { appendChecksumFooter } from 'nmea-simple/dist/helpers.js';
import { afterEach, describe, expect, it } from 'vitest';
import { RECEIVER_SILENT_MS, type LocationStatus, type ReceiverStatus } from '../../shared/location.js';
import { MAX_LINES_PER_SECOND, Receiver } from '../../main/core/location/receiver.js';
import { PinnedClock, testCore, type TestCore } from '../support/core.js';

/**
 * Receivers over real TCP on loopback: a server that streams what a receiver (or gpsd) sends,
 * and the core's Location reading it as the map would, through the console's operations.
 */

/** A stream in the form a u-blox receiver sends at 1 Hz (RMC, GGA, GSA, GSV, GST), with three lines of noise among it. */
const RECORDED = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'nmea', 'ublox-1hz.nmea'), 'utf8').split(/\r?\n/);
const NOISE_LINES = 3;

const open: Array<{ close(): void }> = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

interface Peer {
  port: number;
  /** Sockets connected now. */
  sockets: Set<Socket>;
  /** Everything received from the app. */
  heard: string[];
  server: Server;
}

async function peer(onConnect: (socket: Socket) => void): Promise<Peer> {
  const sockets = new Set<Socket>();
  const heard: string[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.on('data', (d) => heard.push(d.toString()));
    onConnect(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { port: address.port, sockets, heard, server };
}

async function until<T>(probe: () => T | undefined, what: string, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function core(): TestCore {
  const c = testCore({ clock: new PinnedClock(Date.now()) });
  open.push(c);
  return c;
}

const receiverOf = async (c: TestCore): Promise<ReceiverStatus> => {
  const status: LocationStatus = await c.console['location.status']({});
  if (!status.receiver) throw new Error('no receiver');
  return status.receiver;
};

describe('an NMEA receiver over TCP', () => {
  it('gives position, height, both accuracies and satellites from GGA, GSA and GST, and counts the noise', async () => {
    const p = await peer((socket) => socket.write(RECORDED.join('\r\n') + '\r\n'));
    const c = core();
    await c.console['location.configure']({ source: 'nmea-tcp', host: '127.0.0.1', port: p.port, wantAccuracyM: 5 });
    const r = await until(() => {
      const s = c.location.status().receiver;
      return s?.fix && s.ignoredLines === NOISE_LINES ? s : undefined;
    }, 'the stream read');
    // The last epoch of the recording: 37.78785 + 4 × 0.000004 N, 122.40393 + 4 × 0.000003 W, 18.8 m.
    expect(r.fix?.lat).toBeCloseTo(37.787866, 5);
    expect(r.fix?.lng).toBeCloseTo(-122.403942, 5);
    expect(r.fix?.elevation).toBeCloseTo(18.8, 5);
    // GST: latitude error 1.7, longitude error 2.0 → 2.62 m; altitude error 3.1.
    expect(r.fix?.accuracy).toBeCloseTo(Math.hypot(1.7, 2.0), 5);
    expect(r.fix?.vaccuracy).toBeCloseTo(3.1, 5);
    expect(r.fix?.mode).toBe('3d');
    expect(r.fix?.satellites).toBe(11);
    expect(r.used).toEqual(['GGA', 'GSA', 'GST', 'RMC']);
    expect(r.connected).toBe(true);
    expect(r.problem).toBeNull();
  });

  it('says "no fix" once the stream stops, and again once the receiver says it has none', async () => {
    let socket: Socket | undefined;
    const p = await peer((s) => {
      socket = s;
      s.write(RECORDED.slice(0, 5).join('\r\n') + '\r\n');
    });
    const clock = new PinnedClock(Date.now());
    const r = new Receiver({ source: 'nmea-tcp', host: '127.0.0.1', port: p.port }, () => clock.now());
    open.push({ close: () => r.stop() });
    await until(() => r.status().fix ?? undefined, 'a fix');
    clock.advance(RECEIVER_SILENT_MS - 100);
    expect(r.status().fix).not.toBeNull();
    clock.advance(200);
    expect(r.status().fix).toBeNull();
    expect(r.status().connected).toBe(true);
    // A GGA of quality 0: the receiver lost the sky.
    socket!.write(RECORDED.slice(0, 5).join('\r\n') + '\r\n');
    await until(() => r.status().fix ?? undefined, 'a fix again');
    socket!.write(appendChecksumFooter('$GNGGA,183020.00,,,,,0,00,99.99,,,,,,') + '\r\n');
    await until(() => (r.status().fix === null ? true : undefined), 'no fix');
  });

  it('connects again when the receiver drops the connection', async () => {
    let connections = 0;
    const p = await peer((s) => {
      connections += 1;
      s.write(RECORDED.slice(0, 5).join('\r\n') + '\r\n');
      if (connections === 1) setTimeout(() => s.destroy(), 50);
    });
    const r = new Receiver({ source: 'nmea-tcp', host: '127.0.0.1', port: p.port }, Date.now);
    open.push({ close: () => r.stop() });
    await until(() => (connections === 2 && r.status().connected ? true : undefined), 'a second connection');
    expect(r.status().fix).not.toBeNull();
  });

  it('drops a line longer than a sentence can be without keeping it, and goes on', async () => {
    const MB = 1024 * 1024;
    const block = 'x'.repeat(MB);
    const p = await peer((s) => {
      // 192 MB without a line end, then the recording.
      let left = 192;
      const pump = (): void => {
        while (left > 0 && s.write(block)) left -= 1;
        if (left > 0) s.once('drain', pump);
        else s.write('\r\n' + RECORDED.slice(0, 5).join('\r\n') + '\r\n');
      };
      pump();
    });
    const before = process.memoryUsage().heapUsed;
    let peak = before;
    const r = new Receiver({ source: 'nmea-tcp', host: '127.0.0.1', port: p.port }, Date.now);
    open.push({ close: () => r.stop() });
    const fix = await until(() => {
      peak = Math.max(peak, process.memoryUsage().heapUsed);
      return r.status().fix ?? undefined;
    }, 'a fix after the long line', 20_000);
    expect(fix.elevation).toBeCloseTo(18.4, 5);
    expect(r.status().ignoredLines).toBe(1);
    // Kept, it would be 192 MB of string.
    expect((peak - before) / MB).toBeLessThan(64);
  });

  it('pauses a peer that floods it with more lines a second than a receiver sends', async () => {
    // Sentences with a wrong checksum: each one read is counted, so the count is what was read.
    const junk = '$GPGSV,3,1,11,02,23,306,31,05,61,052,38,12,35,277,33,13,19,110,29,1*00\r\n'.repeat(1_000);
    let sent = 0;
    const p = await peer((s) => {
      const pump = (): void => {
        while (!s.destroyed && s.write(junk)) sent += 1_000;
        if (!s.destroyed) s.once('drain', pump);
      };
      pump();
    });
    const r = new Receiver({ source: 'nmea-tcp', host: '127.0.0.1', port: p.port }, Date.now);
    open.push({ close: () => r.stop() });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const read = r.status().ignoredLines;
    r.stop();
    // Two seconds' budget began, each past its budget by at most one 64 KiB chunk (~900 lines).
    expect(read).toBeGreaterThan(MAX_LINES_PER_SECOND);
    expect(read).toBeLessThan(2 * (MAX_LINES_PER_SECOND + 1_000));
    expect(sent).toBeGreaterThan(read);
  });

  it('says in plain words when nothing listens at the address', async () => {
    const p = await peer(() => undefined);
    const port = p.port;
    p.server.close();
    const c = core();
    await c.console['location.configure']({ source: 'nmea-tcp', host: '127.0.0.1', port, wantAccuracyM: 5 });
    const r = await until(() => c.location.status().receiver?.problem ?? undefined, 'a problem');
    expect(r).toBe(`127.0.0.1:${port} refused the connection: check that the receiver (or its app) is on and serves on that port.`);
    expect((await receiverOf(c)).connected).toBe(false);
  });
});

describe('gpsd', () => {
  it('is asked to watch in JSON, and gives the TPV position with its error estimates and the satellites used', async () => {
    const p = await peer((s) => {
      s.write('{"class":"VERSION","release":"3.25","rev":"3.25","proto_major":3,"proto_minor":15}\n');
      s.on('data', (d) => {
        if (!d.toString().startsWith('?WATCH=')) return;
        s.write('{"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox"}]}\n');
        s.write('{"class":"WATCH","enable":true,"json":true}\n');
        s.write('{"class":"SKY","device":"/dev/ttyACM0","nSat":14,"uSat":9,"satellites":[{"PRN":2,"used":true}]}\n');
        s.write('not json at all\n');
        s.write('{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2026-11-27T18:30:10.000Z","lat":37.78785,"lon":-122.40393,"altHAE":-13.7,"altMSL":18.4,"eph":2.4,"epx":1.9,"epy":1.6,"epv":3.6}\n');
      });
    });
    const c = core();
    await c.console['location.configure']({ source: 'gpsd', host: '127.0.0.1', port: p.port, wantAccuracyM: 5 });
    const r = await until(() => {
      const s = c.location.status().receiver;
      return s?.fix ? s : undefined;
    }, 'a TPV read');
    expect(p.heard.join('')).toBe('?WATCH={"enable":true,"json":true};\n');
    expect(r.fix).toMatchObject({ lat: 37.78785, lng: -122.40393, elevation: 18.4, accuracy: 2.4, vaccuracy: 3.6, mode: '3d', satellites: 9 });
    expect(r.used).toEqual(['SKY', 'TPV']);
    expect(r.ignoredLines).toBe(1);
  });

  it('takes a 2D fix without height, and mode 1 as no fix', async () => {
    let socket: Socket | undefined;
    const p = await peer((s) => {
      socket = s;
      s.write('{"class":"TPV","mode":2,"lat":48.1173,"lon":11.5167,"altMSL":545.4,"epx":4.0,"epy":6.5}\n');
    });
    const r = new Receiver({ source: 'gpsd', host: '127.0.0.1', port: p.port }, Date.now);
    open.push({ close: () => r.stop() });
    const fix = await until(() => r.status().fix ?? undefined, 'a 2D fix');
    expect(fix).toMatchObject({ mode: '2d', accuracy: 6.5 });
    expect(fix.elevation).toBeUndefined();
    socket!.write('{"class":"TPV","mode":1}\n');
    await until(() => (r.status().fix === null ? true : undefined), 'no fix');
  });
});

describe('the location setting', () => {
  it('refuses a receiver without a host, naming the field, and keeps what was saved', async () => {
    const c = core();
    const saved = await c.console['location.configure']({ source: 'device', host: '', port: 2947, wantAccuracyM: 8 });
    expect(saved.settings.source).toBe('device');
    expect(saved.receiver).toBeNull();
    const { locationSettings } = await import('../../shared/location.js');
    const refused = locationSettings.safeParse({ source: 'gpsd', host: '  ', port: 2947, wantAccuracyM: 8 });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({ path: ['host'], message: 'must name the receiver, like 192.168.1.20' });
    expect((await c.console['location.status']({})).settings).toEqual({ source: 'device', host: '', port: 2947, wantAccuracyM: 8 });
  });
});
