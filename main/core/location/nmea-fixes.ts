import { getUnsafePacketId, parseUnsafeNmeaSentence, type UnsafePacket } from 'nmea-simple';
import { validNmeaChecksum } from 'nmea-simple/dist/helpers.js';
import type { Fix } from '../../../shared/location.js';
import { numbers, onEarth, type FixReader } from './fix-reader.js';

/**
 * NMEA 0183 sentences to fixes, parsed by nmea-simple. The sentences read (docs/field-guide.md#receivers):
 * - GGA: position, fix quality, satellites used, height above mean sea level;
 * - RMC: position and validity, for receivers that send no GGA (2D then: RMC has no height);
 * - GSA: 2D or 3D (without it a GGA fix counts as 3D, as it carries a height);
 * - GST: the receiver's own error estimate: latitude and longitude errors (1 sigma, metres) give the
 *   horizontal accuracy as their root sum of squares, the altitude error the vertical accuracy.
 *   Without GST the accuracy is not known (HDOP is a ratio, not metres: it is not turned into one).
 * Any other well-formed sentence (GSV, VTG, a maker's own) is passed over; a line that is not a
 * sentence with a right checksum is ignored and counted.
 */
export class NmeaFixes implements FixReader {
  private fix: Fix | null = null;
  private mode: Fix['mode'] | undefined;
  private errors: { accuracy: number; vaccuracy?: number } | undefined;
  private readonly usedIds = new Set<string>();
  ignored = 0;

  constructor(private readonly now: () => number) {}

  read(line: string): void {
    const text = line.trim();
    if (text === '') return;
    // nmea-simple decodes a sentence whose checksum is wrong: the checksum is checked first.
    if (!text.startsWith('$') || !validNmeaChecksum(text)) {
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
        if (p.fixType === 'none') return this.lose();
        const where = onEarth(p.latitude, p.longitude);
        if (!where) return this.refuse();
        this.fix = {
          ...where,
          ...numbers({ elevation: p.altitudeMeters, satellites: p.satellitesInView }),
          mode: this.mode ?? '3d',
          at: this.now(),
          ...this.errors,
        };
        return true;
      }
      case 'RMC': {
        if (p.status !== 'valid') return this.lose();
        const where = onEarth(p.latitude, p.longitude);
        if (!where) return this.refuse();
        // A receiver that sends GGA says more there: its RMC only says whether the fix holds.
        if (this.usedIds.has('GGA')) return true;
        this.fix = { ...where, mode: '2d', at: this.now(), ...(this.errors && { accuracy: this.errors.accuracy }) };
        return true;
      }
      case 'GSA':
        this.mode = p.fixMode === '2D' ? '2d' : p.fixMode === '3D' ? '3d' : undefined;
        if (this.fix && this.mode) this.fix = { ...this.fix, mode: this.mode };
        return this.mode !== undefined;
      case 'GST': {
        if (!Number.isFinite(p.latitudeError) || !Number.isFinite(p.longitudeError)) return false;
        this.errors = { accuracy: Math.hypot(p.latitudeError, p.longitudeError), ...numbers({ vaccuracy: p.altitudeError }) };
        // GST follows the GGA of its epoch: it sharpens the fix just read.
        if (this.fix) this.fix = { ...this.fix, ...this.errors };
        return true;
      }
      default:
        return false;
    }
  }

  /** A sentence with a right checksum and a position off the Earth: a receiver's fault, counted as ignored. */
  private refuse(): false {
    this.ignored += 1;
    return false;
  }

  private lose(): true {
    this.fix = null;
    this.errors = undefined;
    return true;
  }

  last(): Fix | null {
    return this.fix;
  }

  used(): string[] {
    return [...this.usedIds].sort();
  }
}
