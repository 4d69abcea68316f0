import { readFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { RECEIVER_SILENT_MS, type LocationStatus, type ReceiverStatus } from '../../shared/location.js';
import { Receiver } from '../../main/core/location/receiver.js';
import { NmeaFixes } from '../../main/core/location/nmea-fixes.js';
import { withChecksum } from '../../main/core/location/nmea-checksum.js';
import { dispatch } from '../../main/core/console/dispatch.js';
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
    socket!.write(withChecksum('GNGGA,183020.00,,,,,0,00,99.99,,,,,,') + '\r\n');
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

  /** Floods a receiver with `line` for 1.5 s; the main thread's busy share meanwhile, and the receiver's state. */
  async function flood(source: 'nmea-tcp' | 'gpsd', line: string): Promise<{ busy: number; status: ReceiverStatus }> {
    const block = line.repeat(Math.max(1, Math.floor(256 * 1024 / line.length)));
    const p = await peer((s) => {
      const pump = (): void => {
        while (!s.destroyed && s.write(block));
        if (!s.destroyed) s.once('drain', pump);
      };
      pump();
    });
    const r = new Receiver({ source, host: '127.0.0.1', port: p.port }, Date.now);
    open.push({ close: () => r.stop() });
    const before = performance.eventLoopUtilization();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const busy = performance.eventLoopUtilization(before).utilization;
    const status = r.status();
    r.stop();
    return { busy, status };
  }

  it('pauses a peer that floods it with costly lines (16 KiB of gpsd JSON each), so the app stays free', async () => {
    const sky = JSON.stringify({ class: 'SKY', uSat: 9, satellites: Array.from({ length: 320 }, (_, i) => ({ PRN: i, el: 10, az: 20, ss: 30, used: i < 9 })) });
    expect(sky.length).toBeLessThan(16_384);
    const { busy, status } = await flood('gpsd', sky + '\n');
    expect(status.used).toEqual(['SKY']);
    // Its budget is BUSY_MS_PER_SECOND (5 %); the rest is the peer's writing in this same process, and Node's own work.
    expect(busy).toBeLessThan(0.4);
  });

  it('pauses a peer that floods it with cheap lines', async () => {
    const { busy, status } = await flood('nmea-tcp', '$GPGSV,3,1,11,02,23,306,31,05,61,052,38,12,35,277,33,13,19,110,29,1*00\r\n');
    expect(status.ignoredLines).toBeGreaterThan(1_000);
    expect(busy).toBeLessThan(0.4);
  });

  it('connects again when a connected receiver goes silent (half open), and says so', async () => {
    let connections = 0;
    const p = await peer((s) => {
      connections += 1;
      s.write(RECORDED.slice(0, 5).join('\r\n') + '\r\n');
      // Then nothing, and no close: a phone app put in the background.
    });
    const r = new Receiver({ source: 'nmea-tcp', host: '127.0.0.1', port: p.port }, Date.now, 400);
    open.push({ close: () => r.stop() });
    await until(() => (connections >= 2 ? true : undefined), 'a second connection', 5_000);
    expect(r.status().problem ?? '').toMatch(/sent nothing for 0 s; connecting again\.|^$/);
  });

  it('tries less and less often a peer that takes the connection and drops it at once', async () => {
    let connections = 0;
    const p = await peer((s) => {
      connections += 1;
      s.destroy();
    });
    const r = new Receiver({ source: 'nmea-tcp', host: '127.0.0.1', port: p.port }, Date.now);
    open.push({ close: () => r.stop() });
    await new Promise((resolve) => setTimeout(resolve, 3_600));
    // At 0, 1 and 3 s (waits of 1 then 2 s); every second, had a connection started the waits again.
    expect(connections).toBeLessThanOrEqual(3);
    expect(connections).toBeGreaterThanOrEqual(2);
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
    expect(fix).toMatchObject({ mode: '2d' });
    expect(fix.accuracy).toBeCloseTo(Math.hypot(4, 6.5), 5);
    expect(fix.elevation).toBeUndefined();
    socket!.write('{"class":"TPV","mode":1}\n');
    await until(() => (r.status().fix === null ? true : undefined), 'no fix');
  });
});

describe('the location setting', () => {
  it('refuses a receiver without a host, naming the field, and keeps what was saved', async () => {
    const c = core();
    const saved = await dispatch(c.console, 'location.configure', { source: 'device', host: '', port: 2947, wantAccuracyM: 8 });
    expect(saved).toMatchObject({ ok: true, value: { settings: { source: 'device' }, receiver: null } });
    const refused = await dispatch(c.console, 'location.configure', { source: 'gpsd', host: '  ', port: 2947, wantAccuracyM: 8 });
    expect(refused).toMatchObject({ ok: false, error: { parameter: 'host' } });
    expect(JSON.stringify(refused)).toContain('must name the receiver, like 192.168.1.20');
    const bracketed = await dispatch(c.console, 'location.configure', { source: 'gpsd', host: '[::1]', port: 2947, wantAccuracyM: 8 });
    expect(bracketed).toMatchObject({ ok: false, error: { parameter: 'host' } });
    expect((await c.console['location.status']({})).settings).toEqual({ source: 'device', host: '', port: 2947, wantAccuracyM: 8 });
  });
});

describe('what NMEA sentences mean', () => {
  const read = (...bodies: string[]): NmeaFixes => {
    const n = new NmeaFixes(() => 1_000);
    for (const b of bodies) n.read(withChecksum(b));
    return n;
  };
  const GGA = (time: string, quality: number, alt = '18.4') => `GNGGA,${time},3747.27100,N,12224.23580,W,${quality},11,0.86,${alt},M,-32.1,M,,`;

  it('takes no fix from dead reckoning, a typed-in or a simulated position (GGA quality 6, 7, 8)', () => {
    for (const q of [6, 7, 8]) expect(read(GGA('183010.00', q)).last()).toBeNull();
    expect(read(GGA('183010.00', 4)).last()).toMatchObject({ quality: 'RTK fixed' });
    expect(read(GGA('183010.00', 5)).last()).toMatchObject({ quality: 'RTK float' });
  });

  it('keeps no height for a 2D fix', () => {
    const fix = read('GNGSA,A,2,02,05,12,,,,,,,,,,2.5,1.9,1.6,1', GGA('183010.00', 1)).last();
    expect(fix?.mode).toBe('2d');
    expect(fix?.elevation).toBeUndefined();
    const later = read(GGA('183010.00', 1), 'GNGSA,A,2,02,05,12,,,,,,,,,,2.5,1.9,1.6,1').last();
    expect(later?.elevation).toBeUndefined();
  });

  it('applies a GST only to the GGA of its time, before or after it', () => {
    expect(read('GNGST,183010.00,12,2.1,1.4,48.2,1.7,2.0,3.1', GGA('183010.00', 1)).last()?.accuracy).toBeCloseTo(2.62, 2);
    expect(read(GGA('183010.00', 1), 'GNGST,183010.00,12,2.1,1.4,48.2,1.7,2.0,3.1').last()?.accuracy).toBeCloseTo(2.62, 2);
    // A receiver that stopped sending GST: the old estimate does not follow the new fixes.
    expect(read('GNGST,183010.00,12,2.1,1.4,48.2,1.7,2.0,3.1', GGA('183010.00', 1), GGA('183011.00', 1)).last()?.accuracy).toBeUndefined();
  });

  it('leaves out an accuracy that is no measurement, and a height out of the POI rules', () => {
    const fix = read('GNGST,183010.00,12,2.1,1.4,48.2,9999,9999,-3', GGA('183010.00', 1, '2000000')).last();
    expect(fix).not.toBeNull();
    expect(fix?.accuracy).toBeUndefined();
    expect(fix?.vaccuracy).toBeUndefined();
    expect(fix?.elevation).toBeUndefined();
  });
});

describe('what gpsd reports mean', () => {
  it('takes no fix from a simulated or dead-reckoned TPV, and leaves out negative or huge estimates', async () => {
    const { GpsdFixes } = await import('../../main/core/location/gpsd-fixes.js');
    const g = new GpsdFixes(() => 1_000);
    g.read('{"class":"TPV","mode":3,"status":8,"lat":37.7,"lon":-122.4,"altMSL":10,"eph":3}');
    expect(g.last()).toBeNull();
    g.read('{"class":"TPV","mode":3,"status":3,"lat":37.7,"lon":-122.4,"altMSL":10,"eph":-3,"epv":1e308}');
    expect(g.last()).toMatchObject({ lat: 37.7, quality: 'RTK fixed', elevation: 10 });
    expect(g.last()?.accuracy).toBeUndefined();
    expect(g.last()?.vaccuracy).toBeUndefined();
    g.read('{"class":"TPV","mode":2,"lat":37.7,"lon":-122.4,"epx":3,"epy":4}');
    expect(g.last()?.accuracy).toBe(5);
  });
});
