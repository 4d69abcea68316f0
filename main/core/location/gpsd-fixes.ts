import { z } from 'zod';
import type { Fix } from '../../../shared/location.js';
import { fixNumbers, onEarth, type FixReader } from './fix-reader.js';

/** What we ask gpsd for once connected: its reports as JSON, one object a line. */
export const GPSD_WATCH = '?WATCH={"enable":true,"json":true};\n';

// Only the fields read; gpsd sends many more, and older versions fewer (docs/field-guide.md#receivers).
const tpv = z.object({
  class: z.literal('TPV'),
  /** 0 unknown, 1 no fix, 2 2D, 3 3D. */
  mode: z.number(),
  /** 2 DGPS, 3 RTK fixed, 4 RTK float, 5 dead reckoning, 6 GNSS + dead reckoning, 7 time only, 8 simulated (gpsd 3.20 and later). */
  status: z.number().optional(),
  lat: z.number().optional(),
  lon: z.number().optional(),
  /** Height above mean sea level (gpsd 3.20 and later); `alt` before that. */
  altMSL: z.number().optional(),
  alt: z.number().optional(),
  /** Estimated horizontal error, metres (gpsd 3.20 and later). */
  eph: z.number().optional(),
  epx: z.number().optional(),
  epy: z.number().optional(),
  epv: z.number().optional(),
});
const sky = z.object({
  class: z.literal('SKY'),
  uSat: z.number().optional(),
  satellites: z.array(z.object({ used: z.boolean().optional() })).max(500).optional(),
});
const report = z.discriminatedUnion('class', [tpv, sky]);
/** TPV statuses that are no position measured from satellites. */
const NOT_MEASURED = new Set([5, 6, 7, 8]);
const QUALITY: Record<number, string> = { 2: 'DGPS', 3: 'RTK fixed', 4: 'RTK float' };
/** Classes gpsd sends that carry nothing we read: well formed, not ignored. */
const PASSED_OVER = new Set(['VERSION', 'DEVICES', 'DEVICE', 'WATCH', 'GST', 'ATT', 'PPS', 'TOFF', 'ERROR', 'POLL']);

/**
 * gpsd's JSON reports to fixes: TPV for the position (mode 2 or 3), its height and error
 * estimates (eph, else the root sum of squares of epx and epy; epv), SKY for the satellites
 * used. gpsd's estimates are its own; it states no confidence for them.
 */
export class GpsdFixes implements FixReader {
  /** gpsd's largest report, SKY with every satellite in view, is a few kilobytes. */
  readonly maxLineChars = 16_384;
  private fix: Fix | null = null;
  private satellites: number | undefined;
  private readonly usedClasses = new Set<string>();
  ignored = 0;

  constructor(private readonly now: () => number) {}

  read(line: string): void {
    const text = line.trim();
    if (text === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.ignored += 1;
      return;
    }
    const parsed = report.safeParse(value);
    if (!parsed.success) {
      const known = typeof value === 'object' && value !== null && 'class' in value && typeof value.class === 'string' && PASSED_OVER.has(value.class);
      if (!known) this.ignored += 1;
      return;
    }
    const r = parsed.data;
    if (r.class === 'SKY') {
      this.satellites = r.uSat ?? r.satellites?.filter((s) => s.used === true).length;
      if (this.fix && this.satellites !== undefined) this.fix = { ...this.fix, satellites: this.satellites };
      this.usedClasses.add('SKY');
      return;
    }
    this.usedClasses.add('TPV');
    if (r.mode < 2 || (r.status !== undefined && NOT_MEASURED.has(r.status))) {
      this.fix = null;
      return;
    }
    const where = onEarth(r.lat, r.lon);
    if (!where) {
      this.ignored += 1;
      return;
    }
    const mode = r.mode === 2 ? '2d' : '3d';
    const sideways = r.epx !== undefined && r.epy !== undefined ? Math.hypot(r.epx, r.epy) : undefined;
    const quality = r.status === undefined ? undefined : QUALITY[r.status];
    this.fix = {
      ...where,
      mode,
      at: this.now(),
      ...fixNumbers({
        accuracy: r.eph ?? sideways,
        vaccuracy: mode === '3d' ? r.epv : undefined,
        // `alt` is gpsd's height above sea level before 3.20 (it sends altMSL since, and no alt).
        elevation: mode === '3d' ? (r.altMSL ?? r.alt) : undefined,
        satellites: this.satellites,
      }),
      ...(quality && { quality }),
    };
  }

  last(): Fix | null {
    return this.fix;
  }

  used(): string[] {
    return [...this.usedClasses].sort();
  }
}
