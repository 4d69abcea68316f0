/**
 * Timestamps on the wire are ISO 8601 with an explicit offset. Clients send the offset with
 * or without a colon (`+03:00`, `+0300`); we always write it with one, and write our own
 * times in UTC so that replies do not depend on the host's time zone.
 */

const ISO_WITH_OFFSET =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):?(\d{2}))$/;

export interface ParsedInstant {
  /** Milliseconds since the epoch. */
  epochMs: number;
  /** The offset the client wrote, in minutes east of UTC. */
  offsetMinutes: number;
}

export function parseIsoWithOffset(text: string): ParsedInstant | null {
  const m = ISO_WITH_OFFSET.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number, number, number, number, number, number,
  ];
  const millis = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  // Date.UTC reads years 0-99 as 1900-1999: set the full year explicitly.
  const date = new Date(Date.UTC(2000, 0, 1, hour, minute, second, millis));
  date.setUTCFullYear(year, month - 1, day);
  const local = date.getTime();
  // 31 February would roll over into March: refuse instead.
  if (date.getUTCDate() !== day) return null;
  let offsetMinutes = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const epochMs = local - offsetMinutes * 60_000;
  if (!Number.isFinite(epochMs)) return null;
  return { epochMs, offsetMinutes };
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** `2014-09-10T08:10:58.200+02:00`: the instant shown in the given offset. */
export function formatIso(epochMs: number, offsetMinutes = 0): string {
  const d = new Date(epochMs + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
    `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
    `.${pad(d.getUTCMilliseconds(), 3)}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
  );
}

/** Rewrites a client's timestamp in our canonical form, keeping the client's offset. */
export function canonicalIso(text: string): string | null {
  const parsed = parseIsoWithOffset(text);
  return parsed && formatIso(parsed.epochMs, parsed.offsetMinutes);
}
