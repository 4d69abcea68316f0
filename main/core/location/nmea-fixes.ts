import { getUnsafePacketId, parseUnsafeNmeaSentence, type GGAPacket, type UnsafePacket } from 'nmea-simple';
import type { Fix } from '../../../shared/location.js';
import { fixNumbers, onEarth, type FixReader } from './fix-reader.js';
import { checksumHolds } from './nmea-checksum.js';

/** GGA's qualities that are a position measured from satellites; the others (dead reckoning, typed in, simulated) are no fix to record a place with. */
const MEASURED: ReadonlySet<GGAPacket['fixType']> = new Set(['fix', 'delta', 'pps', 'rtk', 'frtk']);
/** What the corner says of the better qualities. */
const QUALITY: Partial<Record<GGAPacket['fixType'], string>> = { delta: 'DGPS', rtk: 'RTK fixed', frtk: 'RTK float' };

/**
 * NMEA 0183 sentences to fixes, parsed by nmea-simple. The sentences read (docs/field-guide.md#receivers):
 * - GGA: position, fix quality, satellites used, height above mean sea level;
 * - RMC: position and validity, for receivers that send no GGA (2D then: RMC has no height);
 * - GSA: 2D or 3D (without it a GGA fix counts as 3D, as it carries a height); a 2D fix keeps no height;
 * - GST: the receiver's own error estimate of the GGA of the same time: the horizontal accuracy is
 *   the root sum of squares of its latitude and longitude errors (1 sigma, so about 63-68 % of
 *   fixes fall within it), the vertical accuracy its altitude error. Without a GST of that time
 *   the accuracy is not known (HDOP is a ratio, not metres: it is not turned into one).
 * Any other well-formed sentence (GSV, VTG, a maker's own) is passed over; a line that is not a
 * sentence with a right checksum is ignored and counted.
 */
export class NmeaFixes implements FixReader {
  /** NMEA's sentences are at most 82 characters; makers' own ones a few hundred. */
  readonly maxLineChars = 1_024;
  private fix: Fix | null = null;
  /** The time of the GGA the fix came from, to match its GST. */
  private fixTime: number | undefined;
  private mode: Fix['mode'] | undefined;
  /** The last GST, by its time: applied to the GGA of that time only. */
  private gst: { time: number; accuracy?: number; vaccuracy?: number } | undefined;
  private readonly usedIds = new Set<string>();
  ignored = 0;

  constructor(private readonly now: () => number) {}

  read(line: string): void {
    const text = line.trim();
    if (text === '') return;
    if (!checksumHolds(text)) {
      this.ignored += 1;
      return;
    }
    let packet: UnsafePacket;
    try {
      packet = parseUnsafeNmeaSentence(text);
    } catch {
      this.ignored += 1;
      return;
    }
    if (this.take(packet)) this.usedIds.add(getUnsafePacketId(packet));
  }

  /** Whether the sentence gave something. */
  private take(p: UnsafePacket): boolean {
    switch (p.sentenceId) {
      case 'GGA': {
        if (!MEASURED.has(p.fixType)) return this.lose();
        const where = onEarth(p.latitude, p.longitude);
        if (!where) return this.refuse();
        this.fixTime = p.time.getTime();
        const mode = this.mode ?? '3d';
        const errors = this.gst?.time === this.fixTime ? this.gst : {};
        const quality = QUALITY[p.fixType];
        this.fix = {
          ...where,
          ...this.within(mode, { elevation: p.altitudeMeters, satellites: p.satellitesInView, ...errors }),
          mode,
          at: this.now(),
          ...(quality && { quality }),
        };
        return true;
      }
      case 'RMC': {
        if (p.status !== 'valid') return this.lose();
        const where = onEarth(p.latitude, p.longitude);
        if (!where) return this.refuse();
        // A receiver that sends GGA says more there: its RMC only says whether the fix holds.
        if (this.usedIds.has('GGA')) return true;
        this.fix = { ...where, mode: '2d', at: this.now() };
        return true;
      }
      case 'GSA':
        this.mode = p.fixMode === '2D' ? '2d' : p.fixMode === '3D' ? '3d' : undefined;
        if (this.fix && this.mode) {
          const { elevation: _h, vaccuracy: _v, ...flat } = this.fix;
          this.fix = this.mode === '2d' ? { ...flat, mode: '2d' } : { ...this.fix, mode: '3d' };
        }
        return this.mode !== undefined;
      case 'GST': {
        const errors = fixNumbers({ accuracy: Math.hypot(p.latitudeError, p.longitudeError), vaccuracy: p.altitudeError });
        this.gst = { time: p.time.getTime(), ...errors };
        // GST usually follows the GGA of its epoch: it sharpens the fix just read.
        if (this.fix && this.fixTime === this.gst.time) this.fix = { ...this.fix, ...this.within(this.fix.mode, errors) };
        return true;
      }
      default:
        return false;
    }
  }

  /** A fix's numbers, without height for a 2D fix. */
  private within(mode: Fix['mode'], values: Parameters<typeof fixNumbers>[0]): ReturnType<typeof fixNumbers> {
    const { elevation, vaccuracy, ...rest } = fixNumbers(values);
    return mode === '3d' ? { ...rest, ...(elevation !== undefined && { elevation }), ...(vaccuracy !== undefined && { vaccuracy }) } : rest;
  }

  /** A sentence with a right checksum and a position off the Earth: a receiver's fault, counted as ignored. */
  private refuse(): false {
    this.ignored += 1;
    return false;
  }

  private lose(): true {
    this.fix = null;
    return true;
  }

  last(): Fix | null {
    return this.fix;
  }

  used(): string[] {
    return [...this.usedIds].sort();
  }
}
