import { z } from 'zod';

/**
 * Where "Add at my position" takes its position from (docs/field-guide.md#add-at-my-position):
 * - `device`: the platform's location (the browser's Geolocation API, also in Electron's window);
 * - `nmea-tcp`: an external GNSS receiver streaming NMEA 0183 sentences over TCP (many receivers
 *   and phone "GPS over TCP" apps do);
 * - `gpsd`: gpsd's JSON protocol (it speaks to the receiver; we speak to it);
 * - `none`: no position; POIs are placed on the map.
 */
export const LOCATION_SOURCES = ['none', 'device', 'nmea-tcp', 'gpsd'] as const;
export type LocationSource = (typeof LOCATION_SOURCES)[number];
/** The sources the main process reads (the page cannot open a TCP connection). */
export type ReceiverSource = Extract<LocationSource, 'nmea-tcp' | 'gpsd'>;
export const isReceiver = (source: LocationSource): source is ReceiverSource => source === 'nmea-tcp' || source === 'gpsd';

/** gpsd's registered port; NMEA-over-TCP apps have no common one (10110 is NMEA's IANA port). */
export const DEFAULT_PORTS: Record<ReceiverSource, number> = { gpsd: 2947, 'nmea-tcp': 10110 };

/** A fix worse than this, in metres, is shown as such until the person takes it anyway. */
export const DEFAULT_WANT_ACCURACY_M = 10;
/** A fix older than this is shown as old (a browser may hand out a cached one). */
export const OLD_FIX_MS = 5_000;
/** A receiver that has sent no fix for this long has none: its stream stopped, or it lost the sky. */
export const RECEIVER_SILENT_MS = 3_000;

export const locationSettings = z
  .object({
    source: z.enum(LOCATION_SOURCES),
    /** The receiver's (or gpsd's) address: a host name or an IP address; unused by `none` and `device`. */
    host: z
      .string()
      .trim()
      .max(253, 'must be at most 253 characters')
      // A name, an IPv4 address, or an IPv6 one without brackets (the port has its own field).
      .regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)?$/, 'must be a host name or an IP address, like 192.168.1.20 or gnss.local'),
    port: z.number().int('must be a whole number').min(1, 'must be 1-65535').max(65535, 'must be 1-65535'),
    wantAccuracyM: z.number().min(0.1, 'must be at least 0.1 metres').max(10_000, 'must be at most 10,000 metres'),
  })
  .superRefine((s, ctx) => {
    if (isReceiver(s.source) && s.host === '') ctx.addIssue({ code: 'custom', path: ['host'], message: 'must name the receiver, like 192.168.1.20' });
  });
export type LocationSettings = z.output<typeof locationSettings>;

export const DEFAULT_LOCATION: LocationSettings = { source: 'none', host: '', port: DEFAULT_PORTS['nmea-tcp'], wantAccuracyM: DEFAULT_WANT_ACCURACY_M };

/** One position as a source gave it; what it does not say is absent. */
export interface Fix {
  lat: number;
  lng: number;
  /** Horizontal accuracy in metres (NMEA: from GST's latitude and longitude errors; gpsd: eph). */
  accuracy?: number;
  /** Vertical accuracy in metres. */
  vaccuracy?: number;
  /** Metres above mean sea level. */
  elevation?: number;
  /** When the fix was taken, ms since the epoch: the platform's timestamp, or when this app received it from a receiver. */
  at: number;
  /** 2D: no height; 3D: with height. */
  mode: '2d' | '3d';
  /** Satellites used in the fix, where the source says. */
  satellites?: number;
  /** Better than a plain fix, where the source says: "DGPS", "RTK fixed", "RTK float". */
  quality?: string;
}

/** What the main process knows of a receiver it reads (`location.status`). */
export interface ReceiverStatus {
  source: ReceiverSource;
  /** Where it reads from, as `host:port`. */
  address: string;
  connected: boolean;
  /** The last fix, unless it is older than RECEIVER_SILENT_MS. */
  fix: Fix | null;
  /** Lines that were not a sentence (or object) it reads: a bad checksum, a cut line, noise. */
  ignoredLines: number;
  /** The sentences (NMEA) or classes (gpsd) that gave something, e.g. ["GGA", "GST", "RMC"]. */
  used: string[];
  /** Why it is not connected, in plain words; null while all is well. */
  problem: string | null;
}

export interface LocationStatus {
  settings: LocationSettings;
  /** Only for a receiver source. */
  receiver: ReceiverStatus | null;
}

/** "3D fix, ±3.2 m, 9 satellites": how the map's corner says a fix. */
export function describeFix(fix: Fix): string {
  const parts = [`${fix.mode === '3d' ? '3D fix' : '2D fix'}${fix.quality ? ` (${fix.quality})` : ''}`];
  if (fix.accuracy !== undefined) parts.push(`±${formatMetres(fix.accuracy)}`);
  if (fix.satellites !== undefined) parts.push(`${fix.satellites} satellites`);
  return parts.join(', ');
}

export const formatMetres = (m: number): string => `${m < 10 ? m.toFixed(1) : Math.round(m).toLocaleString('en')} m`;

/** What keeps a fix from being taken without asking, with the words for it, now and in general (for a live region, said once). */
export const SHORTFALLS = {
  old: 'the position is old',
  'accuracy-unknown': 'its accuracy is not known',
  coarse: 'it is less accurate than asked',
} as const;
export type Shortfall = { why: keyof typeof SHORTFALLS; text: string };

/** Why a fix is not good enough to take without asking; none when it is. */
export function fixShortfall(fix: Fix, wantAccuracyM: number, now: number): Shortfall[] {
  const short: Shortfall[] = [];
  const age = now - fix.at;
  if (age > OLD_FIX_MS) short.push({ why: 'old', text: `${Math.round(age / 1000)} s old` });
  if (fix.accuracy === undefined) short.push({ why: 'accuracy-unknown', text: 'accuracy not known' });
  else if (fix.accuracy > wantAccuracyM) short.push({ why: 'coarse', text: `worse than the ${formatMetres(wantAccuracyM)} asked for` });
  return short;
}
